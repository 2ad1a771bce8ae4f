-- Results: one row per seat of every finished game (a cancelled game has none), written in
-- the same statement as the game's last action. guild_id and rules are copied from the game
-- so the board and the stats never read the games table.
CREATE TABLE results (
    game_id      bigint           NOT NULL REFERENCES games (id),
    seat         integer          NOT NULL CHECK (seat >= 0),
    guild_id     bigint,
    rules        text             NOT NULL,
    player_id    bigint,
    name         text             NOT NULL,
    is_bot       boolean          NOT NULL,
    total        integer          NOT NULL,
    rank         integer          NOT NULL CHECK (rank >= 1),
    settlement   double precision NOT NULL,  -- total − the table's average (RULES.md)
    ev_loss      double precision CHECK (ev_loss IS NULL OR ev_loss >= 0),
    duration_s   double precision NOT NULL CHECK (duration_s >= 0),
    finished_at  timestamptz      NOT NULL,
    PRIMARY KEY (game_id, seat),
    CHECK (is_bot OR player_id IS NOT NULL)
);

-- A member's last scores (the stats chart) and totals (member stats).
CREATE INDEX results_member_recent ON results (player_id, guild_id, finished_at);
-- The server's recent finished games (history), in its exact order (read backwards).
CREATE INDEX games_finished ON games (guild_id, updated_at, id) WHERE status = 'finished';

CREATE TRIGGER results_no_update BEFORE UPDATE OR DELETE ON results
    FOR EACH ROW EXECUTE FUNCTION refuse_change('results are append-only');
CREATE TRIGGER results_no_truncate BEFORE TRUNCATE ON results
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_change('results are append-only');

-- Per-server settings; a server without a row has these defaults, the same as
-- db.store.GuildSettings (update_settings inserts only the columns it changes).
CREATE TABLE guild_settings (
    guild_id       bigint      PRIMARY KEY,
    default_rules  text,                     -- NULL: the bot's default
    turn_timeout   integer     NOT NULL DEFAULT 300 CHECK (turn_timeout BETWEEN 30 AND 86400),
    bots_allowed   boolean     NOT NULL DEFAULT true,
    hints_allowed  boolean     NOT NULL DEFAULT true,
    images         boolean     NOT NULL DEFAULT false,
    language       text,                     -- NULL: each player's own locale
    updated_at     timestamptz NOT NULL
);
