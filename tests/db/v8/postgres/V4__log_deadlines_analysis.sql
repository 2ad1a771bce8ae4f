-- Deadlines in a column, analysis written after a game's finish, and the scorecards
-- setting (SQLite's V4). SQLite's V4 also rewrote snapshots of an older format (history
-- inside, a version of their own): no PostgreSQL store ever wrote those, so nothing here.

-- The turn timers' deadline (lobby expiry, turn time-out), indexed for the due-games scan:
-- only active games with a deadline are in the index, in the order due_games reads them.
ALTER TABLE games ADD COLUMN deadline timestamptz;

CREATE INDEX games_due ON games (deadline, id)
    WHERE deadline IS NOT NULL AND status IN ('lobby', 'playing');

-- The post-game analysis runs after the finishing commit (off the click's path) and fills
-- in ev_loss once; every other column of a result stays append-only.
DROP TRIGGER results_no_update ON results;

CREATE TRIGGER results_no_update
    BEFORE UPDATE OF game_id, seat, guild_id, rules, player_id, name, is_bot, total, rank,
                     settlement, duration_s, finished_at ON results
    FOR EACH ROW EXECUTE FUNCTION refuse_change('results are append-only');

CREATE TRIGGER results_no_delete BEFORE DELETE ON results
    FOR EACH ROW EXECUTE FUNCTION refuse_change('results are append-only');

CREATE TRIGGER results_analysed_once BEFORE UPDATE OF ev_loss ON results
    FOR EACH ROW WHEN (OLD.ev_loss IS NOT NULL OR NEW.ev_loss IS NULL)
    EXECUTE FUNCTION refuse_change('a result is analysed once');

-- The standings follow, once per statement and in key order (see count_results). The
-- triggers above let an UPDATE change nothing but a NULL ev_loss into a value.
CREATE FUNCTION count_analysis() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    member record;
BEGIN
    FOR member IN
        SELECT a.guild_id, a.rules, a.player_id, sum(a.ev_loss) AS loss, count(*) AS n
        FROM after_rows a JOIN before_rows b USING (game_id, seat)
        WHERE a.guild_id IS NOT NULL AND NOT a.is_bot
          AND b.ev_loss IS NULL AND a.ev_loss IS NOT NULL
        GROUP BY a.guild_id, a.rules, a.player_id
        ORDER BY a.guild_id, a.rules, a.player_id
    LOOP
        UPDATE standings SET loss_sum = loss_sum + member.loss, analysed = analysed + member.n
        WHERE guild_id = member.guild_id AND rules = member.rules
          AND player_id = member.player_id;
    END LOOP;
    RETURN NULL;
END
$$;

CREATE TRIGGER results_analysed AFTER UPDATE ON results
    REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows
    FOR EACH STATEMENT EXECUTE FUNCTION count_analysis();

-- When a game shows the table's scorecard: every turn, every round, or only at the end.
ALTER TABLE guild_settings ADD COLUMN scorecards text NOT NULL DEFAULT 'turn'
    CHECK (scorecards IN ('turn', 'round', 'end'));
