-- The turn timers claim a due game before acting on it (as PostgreSQL's V8: there several
-- processes may hold one shard; here one process owns the file, but the store behaves the
-- same). A claim holds for the version it saw: any save ends it.
ALTER TABLE games ADD COLUMN claimed_until TEXT;
ALTER TABLE games ADD COLUMN claimed_version INTEGER;
