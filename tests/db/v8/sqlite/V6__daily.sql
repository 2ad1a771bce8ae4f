-- The daily dice: a member's solo game of the day's dice is a games row of kind 'daily'
-- (its UTC day in `day`); its result goes to daily_results, never to results (a solo
-- game is always "won": it must not count on the table boards).
ALTER TABLE games ADD COLUMN kind TEXT NOT NULL DEFAULT 'table'
    CHECK (kind IN ('table', 'daily'));
ALTER TABLE games ADD COLUMN day TEXT CHECK ((day IS NULL) = (kind = 'table'));

-- A daily never blocks its channel, is never reloaded at start-up (no timer: it is
-- loaded by id when clicked) and is not in the server's history.
DROP INDEX games_one_active_per_channel;
CREATE UNIQUE INDEX games_one_active_per_channel
    ON games (channel_id) WHERE status IN ('lobby', 'playing') AND kind = 'table';
DROP INDEX games_active;
CREATE INDEX games_active ON games (status) WHERE status IN ('lobby', 'playing') AND kind = 'table';
DROP INDEX games_finished;
CREATE INDEX games_finished ON games (guild_id, updated_at)
    WHERE status = 'finished' AND kind = 'table';

-- One attempt per member, rule set and day, in whichever server: every server plays the
-- same dice, so a second attempt elsewhere would replay dice already seen.
CREATE UNIQUE INDEX games_one_daily ON games (host_id, rules, day) WHERE kind = 'daily';

-- A finished daily, written with its last action. `streak`: the days in a row, up to this
-- one, the member finished this rule set's daily in this server.
CREATE TABLE daily_results (
    day          TEXT    NOT NULL,   -- YYYY-MM-DD (UTC)
    rules        TEXT    NOT NULL,
    player_id    INTEGER NOT NULL,
    guild_id     INTEGER NOT NULL,
    game_id      INTEGER NOT NULL UNIQUE REFERENCES games (id),
    name         TEXT    NOT NULL,
    total        INTEGER NOT NULL,
    streak       INTEGER NOT NULL CHECK (streak >= 1),
    ev_loss      REAL CHECK (ev_loss IS NULL OR ev_loss >= 0),
    finished_at  TEXT    NOT NULL,
    PRIMARY KEY (day, rules, player_id)
) WITHOUT ROWID;

-- A day's board in a server, read in its order (the first page, and the count of those
-- ahead of a member, are index range scans however many played).
CREATE INDEX daily_results_board ON daily_results (guild_id, rules, day, total DESC, player_id);
-- A member's dailies (stats).
CREATE INDEX daily_results_member ON daily_results (guild_id, player_id, rules);

CREATE TRIGGER daily_results_no_update
BEFORE UPDATE OF day, rules, player_id, guild_id, game_id, name, total, streak, finished_at
ON daily_results
BEGIN
    SELECT RAISE(ABORT, 'daily results are append-only');
END;

CREATE TRIGGER daily_results_analysed_once BEFORE UPDATE OF ev_loss ON daily_results
WHEN OLD.ev_loss IS NOT NULL OR NEW.ev_loss IS NULL
BEGIN
    SELECT RAISE(ABORT, 'a result is analysed once');
END;

CREATE TRIGGER daily_results_no_delete BEFORE DELETE ON daily_results
BEGIN
    SELECT RAISE(ABORT, 'daily results are append-only');
END;

-- Boards show the name a member last played under, a daily's too.
CREATE TRIGGER daily_results_name AFTER INSERT ON daily_results
BEGIN
    INSERT INTO member_names VALUES (NEW.guild_id, NEW.player_id, NEW.name, NEW.finished_at)
    ON CONFLICT (guild_id, player_id) DO UPDATE SET
        name = excluded.name, named_at = excluded.named_at
    WHERE excluded.named_at >= member_names.named_at;
END;

-- The best total of each server's day (who holds the day's win).
CREATE TABLE daily_days (
    guild_id  INTEGER NOT NULL,
    rules     TEXT    NOT NULL,
    day       TEXT    NOT NULL,
    best      INTEGER NOT NULL,
    PRIMARY KEY (guild_id, rules, day)
) WITHOUT ROWID;

-- Running totals per (server, rule set, member) for the `daily` board: days played, days
-- won (first place so far; a shared first place counts) and the longest streak.
CREATE TABLE daily_standings (
    guild_id     INTEGER NOT NULL,
    rules        TEXT    NOT NULL,
    player_id    INTEGER NOT NULL,
    played       INTEGER NOT NULL,
    wins         INTEGER NOT NULL CHECK (wins >= 0),
    best_streak  INTEGER NOT NULL,
    PRIMARY KEY (guild_id, rules, player_id)
) WITHOUT ROWID;

CREATE INDEX daily_standings_by_member ON daily_standings (guild_id, player_id);

-- Results are append-only and a total never changes, so the wins can be kept exactly: a
-- total above the day's best takes the win from the day's leaders so far, a total equal
-- to it shares it.
CREATE TRIGGER daily_results_count AFTER INSERT ON daily_results
BEGIN
    UPDATE daily_standings SET wins = wins - 1
    WHERE guild_id = NEW.guild_id AND rules = NEW.rules
      AND NEW.total > (SELECT best FROM daily_days
                       WHERE guild_id = NEW.guild_id AND rules = NEW.rules AND day = NEW.day)
      AND player_id IN (
          SELECT r.player_id FROM daily_results r JOIN daily_days d
              ON d.guild_id = r.guild_id AND d.rules = r.rules AND d.day = r.day
          WHERE r.guild_id = NEW.guild_id AND r.rules = NEW.rules AND r.day = NEW.day
            AND r.total = d.best AND r.player_id <> NEW.player_id);
    INSERT INTO daily_standings VALUES (
        NEW.guild_id, NEW.rules, NEW.player_id, 1,
        NEW.total >= COALESCE((SELECT best FROM daily_days WHERE guild_id = NEW.guild_id
                               AND rules = NEW.rules AND day = NEW.day), NEW.total),
        NEW.streak)
    ON CONFLICT (guild_id, rules, player_id) DO UPDATE SET
        played = played + 1,
        wins = wins + excluded.wins,
        best_streak = MAX(best_streak, excluded.best_streak);
    INSERT INTO daily_days VALUES (NEW.guild_id, NEW.rules, NEW.day, NEW.total)
    ON CONFLICT (guild_id, rules, day) DO UPDATE SET best = MAX(best, excluded.best);
END;

-- The hindsight optimum of a day's dice: the same for every member and server, computed
-- once. `dice` names the secret the dice came from (a fingerprint, never the secret).
CREATE TABLE daily_best (
    dice         TEXT    NOT NULL,
    rules        TEXT    NOT NULL,
    day          TEXT    NOT NULL,
    score        INTEGER NOT NULL,
    exact        INTEGER NOT NULL CHECK (exact IN (0, 1)),
    computed_at  TEXT    NOT NULL,
    PRIMARY KEY (dice, rules, day)
) WITHOUT ROWID;

-- Deployment secrets made on first use (the daily dice's, when DAILY_SECRET is not set).
CREATE TABLE secrets (
    name        TEXT PRIMARY KEY,
    value       BLOB NOT NULL,
    created_at  TEXT NOT NULL
);
