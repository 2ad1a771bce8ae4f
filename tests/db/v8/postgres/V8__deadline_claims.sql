-- Several processes may hold one shard for a while (a rolling deploy): a process claims a
-- due game before its timer acts (`claim_due`, FOR UPDATE SKIP LOCKED) until a short lease
-- runs out, so each deadline is acted on by one process. A claim holds for the version it
-- saw: any save bumps the version and so ends it, without the save knowing of claims.
ALTER TABLE games ADD COLUMN claimed_until timestamptz;
ALTER TABLE games ADD COLUMN claimed_version integer;
