-- Transactions follow the canonical chain. A mined transaction keeps its block's hash, so that a later look at
-- the chain can tell whether that block is still there; it is watched until its block is final
-- (`finalized_at`). Its last signed bytes are kept, so that a transaction whose block left the chain, or that
-- a node's pool dropped, is broadcast again as the very same transaction (same nonce, same hash).
ALTER TABLE transactions
  ADD COLUMN block_hash text,
  ADD COLUMN finalized_at timestamptz,
  ADD COLUMN raw_transaction text;

-- Transactions settled before this migration count as final, as they were then.
UPDATE transactions SET finalized_at = updated_at WHERE status IN ('succeeded', 'reverted');

-- Mined transactions still watched: the monitor's second look, per wallet.
CREATE INDEX transactions_unfinalized ON transactions (system_wallet_id, network_id, nonce)
  WHERE status IN ('succeeded', 'reverted') AND finalized_at IS NULL;

-- Final transactions above a head that went back (a rollback, a reset chain): the sweep's look.
CREATE INDEX transactions_network_block ON transactions (network_id, block_number) WHERE block_number IS NOT NULL;

-- The newest head and finalized block the platform has seen per network: `confirmations` is counted from it,
-- and a node answering a lower head than this (a load-balanced node that lags) is not taken for a reorg.
-- `head_seen_at`: when a node last answered this head or a higher one.
CREATE TABLE network_heads (
  network_id    integer PRIMARY KEY,
  head          bigint NOT NULL,
  finalized     bigint NOT NULL,
  head_seen_at  timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
