-- Running totals per (server, rule set, member), kept by a trigger on results so they can
-- never disagree with the results they sum, whichever process wrote them; the boards rank
-- these rows (one per member and rule set), never the results. Only servers' games of
-- humans count: DM games and bot seats are on no board.
CREATE TABLE standings (
    guild_id   bigint           NOT NULL,
    rules      text             NOT NULL,
    player_id  bigint           NOT NULL,
    games      integer          NOT NULL,
    wins       integer          NOT NULL,  -- rank 1, ties included
    net        double precision NOT NULL,  -- sum of settlements
    score_sum  bigint           NOT NULL,
    best       integer          NOT NULL,
    loss_sum   double precision NOT NULL,  -- sum of points lost per decision, analysed only
    analysed   integer          NOT NULL,
    PRIMARY KEY (guild_id, rules, player_id)
);

-- The board over every rule set groups by member.
CREATE INDEX standings_by_member ON standings (guild_id, player_id);

INSERT INTO standings
SELECT guild_id, rules, player_id, count(*), count(*) FILTER (WHERE rank = 1),
       sum(settlement), sum(total), max(total), COALESCE(sum(ev_loss), 0), count(ev_loss)
FROM results WHERE guild_id IS NOT NULL AND NOT is_bot
GROUP BY guild_id, rules, player_id;

-- Once per statement (a finish inserts every seat in one): one upsert per member, in key
-- order, so two games finishing at once with the same members lock their rows in the same
-- order and cannot deadlock.
CREATE FUNCTION count_results() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO standings AS s
    SELECT guild_id, rules, player_id, count(*), count(*) FILTER (WHERE rank = 1),
           sum(settlement), sum(total), max(total), COALESCE(sum(ev_loss), 0), count(ev_loss)
    FROM added WHERE guild_id IS NOT NULL AND NOT is_bot
    GROUP BY guild_id, rules, player_id
    ORDER BY guild_id, rules, player_id
    ON CONFLICT (guild_id, rules, player_id) DO UPDATE SET
        games = s.games + excluded.games,
        wins = s.wins + excluded.wins,
        net = s.net + excluded.net,
        score_sum = s.score_sum + excluded.score_sum,
        best = GREATEST(s.best, excluded.best),
        loss_sum = s.loss_sum + excluded.loss_sum,
        analysed = s.analysed + excluded.analysed;
    RETURN NULL;
END
$$;

CREATE TRIGGER results_count AFTER INSERT ON results
    REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION count_results();
