-- A transaction's reorg history: each block that held it and then left the canonical chain. Written by a trigger in
-- the statement that takes the block back (the monitor's), so no path that clears a mined transaction's block can
-- forget it; read by get-transaction (its `reorgs`) and the console's timeline.
CREATE TABLE transaction_reorgs (
  id               bigserial PRIMARY KEY,
  transaction_id   uuid NOT NULL REFERENCES transactions (id) ON DELETE CASCADE,
  block_number     bigint NOT NULL,
  block_hash       text,
  transaction_hash text,
  reorged_at       timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX transaction_reorgs_transaction ON transaction_reorgs (transaction_id, id);

CREATE FUNCTION transaction_reorg_history() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO transaction_reorgs (transaction_id, block_number, block_hash, transaction_hash)
  VALUES (OLD.id, OLD.block_number, OLD.block_hash, OLD.transaction_hash);
  RETURN NULL;
END $$;

CREATE TRIGGER transactions_reorg_history
  AFTER UPDATE OF block_number ON transactions
  FOR EACH ROW
  WHEN (OLD.block_number IS NOT NULL AND NEW.block_number IS NULL)
  EXECUTE FUNCTION transaction_reorg_history();
