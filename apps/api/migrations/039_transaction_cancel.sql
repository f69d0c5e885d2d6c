-- Cancel and deadlines (cancel-transaction, execute-transaction's timeoutSeconds). A row not yet sent becomes
-- `cancelled` at once; a sent one becomes `cancelling` while a 0-value transfer to the wallet itself is sent at its
-- nonce, and ends `cancelled` if that transfer is mined, or as the original's outcome if the original is.
ALTER TABLE transactions DROP CONSTRAINT transactions_status_check;
ALTER TABLE transactions ADD CONSTRAINT transactions_status_check CHECK (status IN (
  'created', 'processing', 'broadcasted', 'succeeded', 'broadcast-failed', 'monitor-failed', 'reverted',
  'cancelling', 'cancelled'));

-- When a cancel was asked (by request, or by the deadline), and why, as the row's errorMessage says once cancelled.
ALTER TABLE transactions ADD COLUMN cancel_requested_at timestamptz;
ALTER TABLE transactions ADD COLUMN cancel_reason text;
-- The hashes of the cancelling transfers sent at the row's nonce (they are among previous_hashes too): a receipt of
-- one of these is the cancel's.
ALTER TABLE transactions ADD COLUMN cancel_hashes text[] NOT NULL DEFAULT '{}';
-- The deadline (created_at + timeoutSeconds): a row not mined by then is cancelled.
ALTER TABLE transactions ADD COLUMN expires_at timestamptz;

DROP INDEX transactions_pending;
CREATE INDEX transactions_pending ON transactions (system_wallet_id, network_id, status, created_at)
  WHERE status IN ('created', 'processing', 'broadcasted', 'cancelling');
-- The rows a sender or monitor pass may have to cancel: asked for, or with a deadline.
CREATE INDEX transactions_cancel_due ON transactions (system_wallet_id, network_id)
  WHERE status IN ('created', 'broadcasted') AND (cancel_requested_at IS NOT NULL OR expires_at IS NOT NULL);

-- The event of a transaction's change: a cancelled row writes transaction.cancelled; a cancelled one whose block
-- left the chain is reorged like a mined one; `cancelling` (and its way back to `broadcasted`) writes none.
CREATE OR REPLACE FUNCTION webhook_transaction_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  kind text;
  message webhook_messages;
BEGIN
  IF OLD.status IS DISTINCT FROM NEW.status THEN
    kind := CASE
      WHEN NEW.status IN ('broadcasted', 'cancelling') AND OLD.status IN ('succeeded', 'reverted', 'cancelled')
        THEN 'transaction.reorged'
      WHEN NEW.status = 'broadcasted' AND OLD.status = 'cancelling' THEN NULL
      WHEN NEW.status = 'broadcasted' THEN 'transaction.broadcasted'
      WHEN NEW.status = 'succeeded' THEN 'transaction.succeeded'
      WHEN NEW.status = 'reverted' THEN 'transaction.reverted'
      WHEN NEW.status IN ('broadcast-failed', 'monitor-failed') THEN 'transaction.failed'
      WHEN NEW.status = 'cancelled' THEN 'transaction.cancelled'
    END;
  ELSIF OLD.finalized_at IS NULL AND NEW.finalized_at IS NOT NULL THEN
    kind := 'transaction.finalized';
  END IF;
  IF kind IS NULL THEN RETURN NULL; END IF;
  message.transaction_id := NEW.id;
  message.snapshot := to_jsonb(NEW) - 'raw_transaction' - 'previous_hashes' - 'cancel_hashes';
  message.previous_status := OLD.status;
  message.sequence := nextval('webhook_message_sequence');
  PERFORM webhook_write_message(NEW.project_id, kind, NULL, message);
  -- A change that is both (a receipt of a block already final): its finality is an event of its own.
  IF OLD.status IS DISTINCT FROM NEW.status AND OLD.finalized_at IS NULL AND NEW.finalized_at IS NOT NULL THEN
    message.sequence := nextval('webhook_message_sequence');
    message.previous_status := NEW.status;
    PERFORM webhook_write_message(NEW.project_id, 'transaction.finalized', NULL, message);
  END IF;
  RETURN NULL;
END $$;

