-- Imported contracts, their activated functions, transactions and the nonce of each (wallet, network).

CREATE TABLE contracts (
  id             serial PRIMARY KEY,
  project_id     integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  network_id     integer NOT NULL,
  -- Stored checksummed (EIP-55), so one address has one spelling.
  address        varchar(256) NOT NULL,
  type           varchar(256) NOT NULL DEFAULT 'imported',
  formatted_abi  jsonb NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, network_id, address)
);

-- One row per (contract, function signature): deactivation clears `active`, so a re-activation keeps its id and
-- the transactions that point at it.
CREATE TABLE contract_activated_functions (
  id                      serial PRIMARY KEY,
  contract_id             integer NOT NULL REFERENCES contracts (id) ON DELETE CASCADE,
  formatted_abi_function  text NOT NULL,
  signature               text NOT NULL,
  active                  boolean NOT NULL DEFAULT true,
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now(),
  UNIQUE (contract_id, signature)
);

CREATE TABLE transactions (
  id                              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id                      integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  contract_activated_function_id  integer NOT NULL REFERENCES contract_activated_functions (id),
  system_wallet_id                integer NOT NULL REFERENCES system_wallets (id),
  network_id                      integer NOT NULL,
  function_args                   jsonb NOT NULL,
  to_address                      text NOT NULL,
  data                            text NOT NULL,
  status                          text NOT NULL DEFAULT 'created' CHECK (status IN (
    'created', 'processing', 'broadcasted', 'succeeded', 'broadcast-failed', 'monitor-failed', 'reverted')),
  transaction_hash                varchar(66),
  -- Every hash this transaction was broadcast under (fee bumps re-send the same nonce under a new hash).
  previous_hashes                 text[] NOT NULL DEFAULT '{}',
  nonce                           bigint,
  gas_price                       numeric(78, 0),
  max_priority_fee_per_gas        numeric(78, 0),
  gas_limit                       numeric(78, 0),
  gas_used                        numeric(78, 0),
  block_number                    bigint,
  error_message                   text,
  send_attempts                   integer NOT NULL DEFAULT 0,
  fee_bumps                       integer NOT NULL DEFAULT 0,
  broadcasted_at                  timestamptz,
  idempotency_key                 varchar(256) NOT NULL,
  -- SHA-256 of the request body: the same key with another body is a conflict.
  request_hash                    text NOT NULL,
  created_at                      timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at                      timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (project_id, idempotency_key)
);
CREATE INDEX transactions_project_created ON transactions (project_id, created_at DESC, id DESC);
CREATE INDEX transactions_project_status_created ON transactions (project_id, status, created_at DESC, id DESC);
CREATE INDEX transactions_pending ON transactions (system_wallet_id, network_id, status, created_at)
  WHERE status IN ('created', 'processing', 'broadcasted');
-- Never two transactions with one nonce from one wallet on one network.
CREATE UNIQUE INDEX transactions_wallet_nonce ON transactions (system_wallet_id, network_id, nonce)
  WHERE nonce IS NOT NULL;

-- The next nonce of each (wallet, network); NULL means "resynchronise from the chain before the next use".
CREATE TABLE wallet_nonces (
  system_wallet_id  integer NOT NULL REFERENCES system_wallets (id),
  network_id        integer NOT NULL,
  next_nonce        bigint,
  updated_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (system_wallet_id, network_id)
);
