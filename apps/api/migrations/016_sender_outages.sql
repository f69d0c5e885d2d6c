-- A sender's run of failures to reach its network's RPC endpoint. An attempt counts only when its retry is due
-- (`unreachable_retry_at`): a sender woken early by a new execution during an outage uses up no retry. The
-- endpoint answering again clears both, so separate short outages never add up to a failure.
ALTER TABLE transaction_senders
  ADD COLUMN unreachable_attempts integer NOT NULL DEFAULT 0,
  ADD COLUMN unreachable_retry_at timestamptz;
