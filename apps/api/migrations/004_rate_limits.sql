-- Token buckets of the rate limiter, shared by every API process of the deployment.
-- UNLOGGED: no write-ahead log, so a take commits without a disk flush; a database crash empties the table, which
-- only means that every bucket starts full again.

CREATE UNLOGGED TABLE rate_limit_buckets (
  bucket     text PRIMARY KEY,
  tokens     double precision NOT NULL,
  updated_at timestamptz NOT NULL,
  -- When the bucket is full again if nothing more is taken: past that, the row carries no information.
  full_at    timestamptz NOT NULL
);
CREATE INDEX rate_limit_buckets_full_at ON rate_limit_buckets (full_at);

-- Takes up to `p_want` whole tokens from a bucket of `p_capacity` tokens refilled at `p_per_second`, creating it
-- full. Returns how many were granted and the tokens left after the take.
CREATE FUNCTION rate_limit_take(p_bucket text, p_capacity double precision, p_per_second double precision, p_want integer)
RETURNS TABLE (granted integer, tokens double precision)
LANGUAGE plpgsql AS $$
DECLARE
  available double precision;
  refilled_at timestamptz;
  now_at timestamptz;
BEGIN
  -- Read the row locked (the clock is read after the lock, so time spent waiting counts as refill); a bucket seen
  -- for the first time, or pruned while full, is created full.
  LOOP
    SELECT b.tokens, b.updated_at INTO available, refilled_at
      FROM rate_limit_buckets b WHERE b.bucket = p_bucket FOR UPDATE;
    EXIT WHEN FOUND;
    INSERT INTO rate_limit_buckets (bucket, tokens, updated_at, full_at)
    VALUES (p_bucket, p_capacity, clock_timestamp(), clock_timestamp())
    ON CONFLICT (bucket) DO NOTHING;
  END LOOP;
  now_at := clock_timestamp();
  available := LEAST(p_capacity, available + GREATEST(0, EXTRACT(EPOCH FROM now_at - refilled_at)) * p_per_second);
  granted := LEAST(p_want, FLOOR(available)::integer);
  tokens := available - granted;
  UPDATE rate_limit_buckets b
     SET tokens = rate_limit_take.tokens,
         updated_at = now_at,
         full_at = now_at + make_interval(secs => (p_capacity - rate_limit_take.tokens) / p_per_second)
   WHERE b.bucket = p_bucket;
  RETURN NEXT;
END
$$;
