-- Snapshots without history, one version counter, deadlines in a column, analysis written
-- after a game's finish, and the scorecards setting.

-- The turn timers' deadline (lobby expiry, turn time-out), indexed for the due-games scan.
ALTER TABLE games ADD COLUMN deadline TEXT;

-- Snapshots used to carry the whole action log (88 % of an 8-player game's snapshot): the
-- actions table is the log. Keep only how many actions were folded.
UPDATE games SET state = json_remove(
        json_set(state, '$.game.seq', json_array_length(state, '$.game.history')),
        '$.game.history', '$.game.version')
WHERE json_type(state, '$.game.history') = 'array';

-- One version: custom_ids carried the snapshot's own counter; the row's version takes it
-- over, so the buttons of the messages already posted keep working.
UPDATE games SET version = json_extract(state, '$.version'),
                 state = json_remove(state, '$.version')
WHERE json_type(state, '$.version') = 'integer';

-- Deadlines of the active games, from the snapshot (a lobby closes 30 minutes after it
-- opened). Second precision is enough for a timer that ticks every few seconds.
UPDATE games SET deadline = CASE
        WHEN status = 'lobby'
            THEN strftime('%Y-%m-%dT%H:%M:%S', created_at, '+30 minutes') || '.000000Z'
        WHEN json_extract(state, '$.deadline') IS NOT NULL
            THEN strftime('%Y-%m-%dT%H:%M:%S', json_extract(state, '$.deadline')) || '.000000Z'
    END
WHERE status IN ('lobby', 'playing');

CREATE INDEX games_due ON games (deadline)
    WHERE deadline IS NOT NULL AND status IN ('lobby', 'playing');

-- The post-game analysis runs after the finishing commit (off the click's path) and fills
-- in ev_loss once; every other column of a result stays append-only.
DROP TRIGGER results_no_update;

CREATE TRIGGER results_no_update
BEFORE UPDATE OF game_id, seat, guild_id, rules, player_id, name, is_bot, total, rank,
                 settlement, duration_s, finished_at ON results
BEGIN
    SELECT RAISE(ABORT, 'results are append-only');
END;

CREATE TRIGGER results_analysed_once BEFORE UPDATE OF ev_loss ON results
WHEN OLD.ev_loss IS NOT NULL OR NEW.ev_loss IS NULL
BEGIN
    SELECT RAISE(ABORT, 'a result is analysed once');
END;

CREATE TRIGGER results_analysed AFTER UPDATE OF ev_loss ON results
WHEN NEW.guild_id IS NOT NULL AND NEW.is_bot = 0
BEGIN
    UPDATE standings SET loss_sum = loss_sum + NEW.ev_loss, analysed = analysed + 1
    WHERE guild_id = NEW.guild_id AND rules = NEW.rules AND player_id = NEW.player_id;
END;

-- When a game shows the table's scorecard: every turn, every round, or only at the end.
ALTER TABLE guild_settings ADD COLUMN scorecards TEXT NOT NULL DEFAULT 'turn'
    CHECK (scorecards IN ('turn', 'round', 'end'));
