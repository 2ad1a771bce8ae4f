-- The name each member last played under in a server (SQLite's V5): leaderboards show
-- names, not mentions (a mention inside an embed renders only for members the reader has
-- cached).
CREATE TABLE member_names (
    guild_id   bigint      NOT NULL,
    player_id  bigint      NOT NULL,
    name       text        NOT NULL,
    named_at   timestamptz NOT NULL,
    PRIMARY KEY (guild_id, player_id)
);

INSERT INTO member_names
SELECT DISTINCT ON (guild_id, player_id) guild_id, player_id, name, finished_at
FROM results WHERE guild_id IS NOT NULL AND NOT is_bot
ORDER BY guild_id, player_id, finished_at DESC;

-- Once per statement, like the standings: one upsert per member in key order (no deadlock
-- between games finishing at once); within one game the last seat wins, as in SQLite,
-- whose row trigger sees the seats in order. An older finish never renames.
CREATE FUNCTION name_members() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO member_names AS m
    SELECT DISTINCT ON (guild_id, player_id) guild_id, player_id, name, finished_at
    FROM added WHERE guild_id IS NOT NULL AND NOT is_bot
    ORDER BY guild_id, player_id, finished_at DESC, seat DESC
    ON CONFLICT (guild_id, player_id) DO UPDATE SET
        name = excluded.name, named_at = excluded.named_at
    WHERE excluded.named_at >= m.named_at;
    RETURN NULL;
END
$$;

CREATE TRIGGER results_name AFTER INSERT ON results
    REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION name_members();
