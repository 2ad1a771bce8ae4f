-- Running totals per (server, rule set, member), kept by a trigger on results so they can
-- never disagree with the results they sum. Aggregating 100,000 results for every
-- leaderboard page took ~60 ms; ranking these rows (one per member and rule set) takes a
-- few. Only servers' games of humans count: DM games and bot seats are not on any board.
CREATE TABLE standings (
    guild_id   INTEGER NOT NULL,
    rules      TEXT    NOT NULL,
    player_id  INTEGER NOT NULL,
    games      INTEGER NOT NULL,
    wins       INTEGER NOT NULL,   -- rank 1, ties included
    net        REAL    NOT NULL,   -- sum of settlements
    score_sum  INTEGER NOT NULL,
    best       INTEGER NOT NULL,
    loss_sum   REAL    NOT NULL,   -- sum of points lost per decision, analysed games only
    analysed   INTEGER NOT NULL,
    PRIMARY KEY (guild_id, rules, player_id)
) WITHOUT ROWID;

-- The board over every rule set groups by member.
CREATE INDEX standings_by_member ON standings (guild_id, player_id);

INSERT INTO standings
SELECT guild_id, rules, player_id, COUNT(*), SUM(rank = 1), SUM(settlement), SUM(total),
       MAX(total), COALESCE(SUM(ev_loss), 0), COUNT(ev_loss)
FROM results WHERE guild_id IS NOT NULL AND is_bot = 0
GROUP BY guild_id, rules, player_id;

CREATE TRIGGER results_count AFTER INSERT ON results
WHEN NEW.guild_id IS NOT NULL AND NEW.is_bot = 0
BEGIN
    INSERT INTO standings VALUES (
        NEW.guild_id, NEW.rules, NEW.player_id, 1, NEW.rank = 1, NEW.settlement, NEW.total,
        NEW.total, COALESCE(NEW.ev_loss, 0), NEW.ev_loss IS NOT NULL)
    ON CONFLICT (guild_id, rules, player_id) DO UPDATE SET
        games = games + 1,
        wins = wins + excluded.wins,
        net = net + excluded.net,
        score_sum = score_sum + excluded.score_sum,
        best = MAX(best, excluded.best),
        loss_sum = loss_sum + excluded.loss_sum,
        analysed = analysed + excluded.analysed;
END;

-- Results are never deleted either, so the totals never need taking back.
CREATE TRIGGER results_no_delete BEFORE DELETE ON results
BEGIN
    SELECT RAISE(ABORT, 'results are append-only');
END;

DROP INDEX results_board_all;
DROP INDEX results_board_rules;
