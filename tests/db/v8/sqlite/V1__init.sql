-- Games: one row per lobby/game with the cog's current snapshot and its version.
CREATE TABLE games (
    id          INTEGER PRIMARY KEY,
    guild_id    INTEGER,
    channel_id  INTEGER NOT NULL,
    host_id     INTEGER NOT NULL,
    rules       TEXT    NOT NULL,
    status      TEXT    NOT NULL DEFAULT 'lobby'
                CHECK (status IN ('lobby', 'playing', 'finished', 'cancelled')),
    version     INTEGER NOT NULL DEFAULT 0,
    state       TEXT    NOT NULL CHECK (json_valid(state)),
    created_at  TEXT    NOT NULL,
    updated_at  TEXT    NOT NULL
);

-- At most one lobby or game in play per channel, enforced by the database so two
-- concurrent /poker new cannot both win.
CREATE UNIQUE INDEX games_one_active_per_channel
    ON games (channel_id) WHERE status IN ('lobby', 'playing');

-- Start-up reloads every active game.
CREATE INDEX games_active ON games (status) WHERE status IN ('lobby', 'playing');

-- The audit trail: every action, in order, never updated or deleted.
CREATE TABLE actions (
    game_id     INTEGER NOT NULL REFERENCES games (id),
    seq         INTEGER NOT NULL CHECK (seq >= 0),
    payload     TEXT    NOT NULL CHECK (json_valid(payload)),
    created_at  TEXT    NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;

CREATE TRIGGER actions_no_update BEFORE UPDATE ON actions
BEGIN
    SELECT RAISE(ABORT, 'actions are append-only');
END;

CREATE TRIGGER actions_no_delete BEFORE DELETE ON actions
BEGIN
    SELECT RAISE(ABORT, 'actions are append-only');
END;
