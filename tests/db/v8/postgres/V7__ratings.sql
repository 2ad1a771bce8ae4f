-- Ratings (SQLite's V7): a Bayesian belief (mu, sigma) per (server, scope, player) from the
-- places of every finished multi-player game (OpenSkill's Plackett-Luce,
-- bot/strategy/rating.py). The scope is a rule set, or '*' for every rule set together.
-- Computer players are rated by level (player_id -1 easy, -2 normal, -3 perfect), so
-- beating a perfect bot counts. `games` counts the rated games and is the row's version: a
-- save writes a rating only if it was computed from the stored one (db/store.py,
-- StaleRating). The results already stored are rated after this file, in game order
-- (db/ratings.py).
CREATE TABLE ratings (
    guild_id    bigint           NOT NULL,
    rules       text             NOT NULL,
    player_id   bigint           NOT NULL,
    mu          double precision NOT NULL,
    sigma       double precision NOT NULL CHECK (sigma > 0),
    ordinal     double precision NOT NULL,  -- the shown value, 1000 + 30 (mu - 3 sigma)
    games       integer          NOT NULL CHECK (games >= 1),
    updated_at  timestamptz      NOT NULL,
    PRIMARY KEY (guild_id, rules, player_id)
);
-- The rating board ranks a scope's rows, read by the primary key's (guild_id, rules)
-- prefix, as the other boards rank their running totals.
