-- Wallet pools: a project's dedicated wallets of a network type are its primary wallet (pool position 0, the one
-- `projects.wallet_<type>_id` names) and those add-system-wallets made (1, 2, …). A shared wallet belongs to no
-- project and stays single.
ALTER TABLE system_wallets
  ADD COLUMN project_id integer REFERENCES projects (id),
  ADD COLUMN pool_position integer CHECK (pool_position >= 0),
  ADD CONSTRAINT system_wallets_pool CHECK ((project_id IS NULL) = (pool_position IS NULL)),
  ADD CONSTRAINT system_wallets_pool_dedicated CHECK (project_id IS NULL OR owner_type = 'dedicated');
UPDATE system_wallets w SET project_id = p.id, pool_position = 0
  FROM projects p
 WHERE w.owner_type = 'dedicated' AND w.id IN (p.wallet_mainnet_id, p.wallet_testnet_id);
CREATE UNIQUE INDEX system_wallets_pool_position ON system_wallets (project_id, network_type, pool_position)
  WHERE project_id IS NOT NULL;

-- Since when a `created` row's wallet has not been able to pay for it (value + gas limit × fee cap): it waits, and
-- fails after WAIT_FOR_FUNDS_SECONDS.
ALTER TABLE transactions ADD COLUMN funds_short_since timestamptz;

-- Rows of one ordering key go through one wallet, in acceptance order: the wallet of the key's latest row.
ALTER TABLE transactions ADD COLUMN ordering_key text;
CREATE INDEX transactions_ordering_key ON transactions (project_id, network_id, ordering_key, created_at DESC)
  WHERE ordering_key IS NOT NULL;
