-- The name each member last played under in a server: leaderboards show names, not
-- mentions (a mention inside an embed renders only for members the reader has cached).
CREATE TABLE member_names (
    guild_id   INTEGER NOT NULL,
    player_id  INTEGER NOT NULL,
    name       TEXT    NOT NULL,
    named_at   TEXT    NOT NULL,
    PRIMARY KEY (guild_id, player_id)
) WITHOUT ROWID;

-- SQLite takes the bare column `name` from the row holding MAX(finished_at).
INSERT INTO member_names
SELECT guild_id, player_id, name, MAX(finished_at) FROM results
WHERE guild_id IS NOT NULL AND is_bot = 0
GROUP BY guild_id, player_id;

CREATE TRIGGER results_name AFTER INSERT ON results
WHEN NEW.guild_id IS NOT NULL AND NEW.is_bot = 0
BEGIN
    INSERT INTO member_names VALUES (NEW.guild_id, NEW.player_id, NEW.name, NEW.finished_at)
    ON CONFLICT (guild_id, player_id) DO UPDATE SET
        name = excluded.name, named_at = excluded.named_at
    WHERE excluded.named_at >= member_names.named_at;
END;
