-- Results: one row per seat of every finished game (a cancelled game has none). Written in
-- the same transaction as the game's last action. guild_id and rules are copied from the
-- game so the leaderboard reads one covering index, never the games table.
CREATE TABLE results (
    game_id      INTEGER NOT NULL REFERENCES games (id),
    seat         INTEGER NOT NULL CHECK (seat >= 0),
    guild_id     INTEGER,
    rules        TEXT    NOT NULL,
    player_id    INTEGER,
    name         TEXT    NOT NULL,
    is_bot       INTEGER NOT NULL CHECK (is_bot IN (0, 1)),
    total        INTEGER NOT NULL,
    rank         INTEGER NOT NULL CHECK (rank >= 1),
    settlement   REAL    NOT NULL,   -- total − the table's average (RULES.md)
    ev_loss      REAL CHECK (ev_loss IS NULL OR ev_loss >= 0),  -- points lost per decision
    duration_s   REAL    NOT NULL CHECK (duration_s >= 0),
    finished_at  TEXT    NOT NULL,
    PRIMARY KEY (game_id, seat),
    CHECK (is_bot = 1 OR player_id IS NOT NULL)
) WITHOUT ROWID;

-- Leaderboards group humans by member; these cover every column they read, one for a
-- server's board over all rule sets, one for a single rule set.
CREATE INDEX results_board_all
    ON results (guild_id, player_id, total, rank, settlement, ev_loss, is_bot) WHERE is_bot = 0;
CREATE INDEX results_board_rules
    ON results (guild_id, rules, player_id, total, rank, settlement, ev_loss, is_bot)
    WHERE is_bot = 0;
-- A member's last scores (the stats chart).
CREATE INDEX results_member_recent ON results (player_id, guild_id, finished_at);
-- The server's recent finished games (history).
CREATE INDEX games_finished ON games (guild_id, updated_at) WHERE status = 'finished';

CREATE TRIGGER results_no_update BEFORE UPDATE ON results
BEGIN
    SELECT RAISE(ABORT, 'results are append-only');
END;

-- Per-server settings; a server without a row has the defaults below.
CREATE TABLE guild_settings (
    guild_id       INTEGER PRIMARY KEY,
    default_rules  TEXT,                                -- NULL: the bot's default
    turn_timeout   INTEGER NOT NULL DEFAULT 300
                   CHECK (turn_timeout BETWEEN 30 AND 86400),
    bots_allowed   INTEGER NOT NULL DEFAULT 1 CHECK (bots_allowed IN (0, 1)),
    hints_allowed  INTEGER NOT NULL DEFAULT 1 CHECK (hints_allowed IN (0, 1)),
    images         INTEGER NOT NULL DEFAULT 0 CHECK (images IN (0, 1)),
    language       TEXT,                                -- NULL: each player's own locale
    updated_at     TEXT    NOT NULL
);
