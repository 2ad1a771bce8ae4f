-- The daily dice (SQLite's V6): a member's solo game of the day's dice is a games row of
-- kind 'daily' (its UTC day in `day`); its result goes to daily_results, never to results
-- (a solo game is always "won": it must not count on the table boards).
ALTER TABLE games ADD COLUMN kind text NOT NULL DEFAULT 'table'
    CHECK (kind IN ('table', 'daily'));
ALTER TABLE games ADD COLUMN day date;
ALTER TABLE games ADD CONSTRAINT games_daily_day CHECK ((day IS NULL) = (kind = 'table'));

-- A daily never blocks its channel, is never reloaded at start-up (no timer: it is loaded
-- by id when clicked) and is not in the server's history.
DROP INDEX games_one_active_per_channel;
CREATE UNIQUE INDEX games_one_active_per_channel
    ON games (channel_id) WHERE status IN ('lobby', 'playing') AND kind = 'table';
DROP INDEX games_active;
CREATE INDEX games_active ON games (id) WHERE status IN ('lobby', 'playing') AND kind = 'table';
DROP INDEX games_finished;
CREATE INDEX games_finished ON games (guild_id, updated_at, id)
    WHERE status = 'finished' AND kind = 'table';

-- One attempt per member, rule set and day, in whichever server: every server plays the
-- same dice, so a second attempt elsewhere would replay dice already seen.
CREATE UNIQUE INDEX games_one_daily ON games (host_id, rules, day) WHERE kind = 'daily';

-- A finished daily, written with its last action. `streak`: the days in a row, up to this
-- one, the member finished this rule set's daily in this server.
CREATE TABLE daily_results (
    day          date             NOT NULL,
    rules        text             NOT NULL,
    player_id    bigint           NOT NULL,
    guild_id     bigint           NOT NULL,
    game_id      bigint           NOT NULL UNIQUE REFERENCES games (id),
    name         text             NOT NULL,
    total        integer          NOT NULL,
    streak       integer          NOT NULL CHECK (streak >= 1),
    ev_loss      double precision CHECK (ev_loss IS NULL OR ev_loss >= 0),
    finished_at  timestamptz      NOT NULL,
    PRIMARY KEY (day, rules, player_id)
);

-- A day's board in a server, read in its order (the first page, and the count of those
-- ahead of a member, are index range scans however many played).
CREATE INDEX daily_results_board ON daily_results (guild_id, rules, day, total DESC, player_id);
-- A member's dailies (stats).
CREATE INDEX daily_results_member ON daily_results (guild_id, player_id, rules);

CREATE TRIGGER daily_results_no_update
    BEFORE UPDATE OF day, rules, player_id, guild_id, game_id, name, total, streak, finished_at
    ON daily_results
    FOR EACH ROW EXECUTE FUNCTION refuse_change('daily results are append-only');
CREATE TRIGGER daily_results_no_delete BEFORE DELETE ON daily_results
    FOR EACH ROW EXECUTE FUNCTION refuse_change('daily results are append-only');
CREATE TRIGGER daily_results_no_truncate BEFORE TRUNCATE ON daily_results
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_change('daily results are append-only');
CREATE TRIGGER daily_results_analysed_once BEFORE UPDATE OF ev_loss ON daily_results
    FOR EACH ROW WHEN (OLD.ev_loss IS NOT NULL OR NEW.ev_loss IS NULL)
    EXECUTE FUNCTION refuse_change('a result is analysed once');

-- Boards show the name a member last played under, a daily's too.
CREATE FUNCTION name_daily() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO member_names AS m VALUES (NEW.guild_id, NEW.player_id, NEW.name, NEW.finished_at)
    ON CONFLICT (guild_id, player_id) DO UPDATE SET
        name = excluded.name, named_at = excluded.named_at
    WHERE excluded.named_at >= m.named_at;
    RETURN NULL;
END
$$;

CREATE TRIGGER daily_results_name AFTER INSERT ON daily_results
    FOR EACH ROW EXECUTE FUNCTION name_daily();

-- The best total of each server's day (who holds the day's win).
CREATE TABLE daily_days (
    guild_id  bigint  NOT NULL,
    rules     text    NOT NULL,
    day       date    NOT NULL,
    best      integer NOT NULL,
    PRIMARY KEY (guild_id, rules, day)
);

-- Running totals per (server, rule set, member) for the `daily` board: days played, days
-- won (first place so far; a shared first place counts) and the longest streak.
CREATE TABLE daily_standings (
    guild_id     bigint  NOT NULL,
    rules        text    NOT NULL,
    player_id    bigint  NOT NULL,
    played       integer NOT NULL,
    wins         integer NOT NULL CHECK (wins >= 0),
    best_streak  integer NOT NULL,
    PRIMARY KEY (guild_id, rules, player_id)
);

CREATE INDEX daily_standings_by_member ON daily_standings (guild_id, player_id);

-- Results are append-only and a total never changes, so the wins are kept exactly: a total
-- above the day's best takes the win from the day's leaders so far, a total equal to it
-- shares it. The day's row is locked first, so finishes of one day queue and each sees the
-- one before; the leaders' rows are then locked in key order (no deadlock between days).
CREATE FUNCTION count_daily() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    old_best integer;
    won integer := 1;
BEGIN
    INSERT INTO daily_days AS d VALUES (NEW.guild_id, NEW.rules, NEW.day, NEW.total)
    ON CONFLICT DO NOTHING RETURNING d.best INTO old_best;
    IF NOT FOUND THEN
        SELECT best INTO old_best FROM daily_days
        WHERE guild_id = NEW.guild_id AND rules = NEW.rules AND day = NEW.day FOR UPDATE;
        IF NEW.total > old_best THEN
            PERFORM 1 FROM daily_standings
            WHERE guild_id = NEW.guild_id AND rules = NEW.rules AND player_id IN (
                SELECT player_id FROM daily_results
                WHERE guild_id = NEW.guild_id AND rules = NEW.rules AND day = NEW.day
                  AND total = old_best AND player_id <> NEW.player_id)
            ORDER BY player_id FOR UPDATE;
            UPDATE daily_standings SET wins = wins - 1
            WHERE guild_id = NEW.guild_id AND rules = NEW.rules AND player_id IN (
                SELECT player_id FROM daily_results
                WHERE guild_id = NEW.guild_id AND rules = NEW.rules AND day = NEW.day
                  AND total = old_best AND player_id <> NEW.player_id);
            UPDATE daily_days SET best = NEW.total
            WHERE guild_id = NEW.guild_id AND rules = NEW.rules AND day = NEW.day;
        ELSIF NEW.total < old_best THEN
            won := 0;
        END IF;
    END IF;
    INSERT INTO daily_standings AS s
    VALUES (NEW.guild_id, NEW.rules, NEW.player_id, 1, won, NEW.streak)
    ON CONFLICT (guild_id, rules, player_id) DO UPDATE SET
        played = s.played + 1,
        wins = s.wins + excluded.wins,
        best_streak = GREATEST(s.best_streak, excluded.best_streak);
    RETURN NULL;
END
$$;

CREATE TRIGGER daily_results_count AFTER INSERT ON daily_results
    FOR EACH ROW EXECUTE FUNCTION count_daily();

-- The hindsight optimum of a day's dice: the same for every member and server, computed
-- once. `dice` names the secret the dice came from (a fingerprint, never the secret).
CREATE TABLE daily_best (
    dice         text        NOT NULL,
    rules        text        NOT NULL,
    day          date        NOT NULL,
    score        integer     NOT NULL,
    exact        boolean     NOT NULL,
    computed_at  timestamptz NOT NULL,
    PRIMARY KEY (dice, rules, day)
);

-- Deployment secrets made on first use (the daily dice's, when DAILY_SECRET is not set).
CREATE TABLE secrets (
    name        text        PRIMARY KEY,
    value       bytea       NOT NULL,
    created_at  timestamptz NOT NULL
);
