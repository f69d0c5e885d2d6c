-- Claims up to `batch` records of a subscription whose delivery attempt is due, oldest due first, by pushing their
-- `next_attempt_at` past the attempt's lease (see delivery.ts). It is a function for its plan settings: the
-- planner's estimate of one subscription's due records is often far too low (a backfill inserts them within
-- seconds, long before the table is analysed), and it then reads and sorts every due record for each batch, which
-- makes delivering a backfill quadratic. An ordered scan of the due index reads only the batch.
CREATE FUNCTION event_notifier_claim_due(subscription uuid, webhook_enabled boolean, batch integer, lease_ms bigint)
RETURNS SETOF event_notifier_records
LANGUAGE sql
SET enable_bitmapscan = off
SET enable_seqscan = off
SET enable_sort = off
AS $$
  WITH due AS (
    SELECT id FROM event_notifier_records
     WHERE subscription_id = subscription AND status = 'scanned' AND next_attempt_at <= now()
       AND (webhook_enabled OR forced)
     ORDER BY next_attempt_at
     LIMIT batch
       FOR UPDATE SKIP LOCKED)
  UPDATE event_notifier_records r SET next_attempt_at = now() + lease_ms * interval '1 millisecond'
    FROM due WHERE r.id = due.id
  RETURNING r.*
$$;
