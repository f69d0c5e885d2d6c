-- Projects, their API keys, users and memberships, system wallets, deployment secrets.

-- Secrets of the deployment itself (the wallet mnemonic), encrypted with the master key.
CREATE TABLE deployment_secrets (
  name        text PRIMARY KEY,
  ciphertext  bytea NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Dedicated wallets take the next index of the deployment mnemonic; 0 and 1 are the shared wallets.
CREATE SEQUENCE wallet_derivation_index_seq START WITH 2;

CREATE TABLE system_wallets (
  id                serial PRIMARY KEY,
  address           text NOT NULL,
  type              text NOT NULL CHECK (type IN ('fireblocks', 'from-mnemonic')),
  network_type      text NOT NULL CHECK (network_type IN ('mainnet', 'testnet')),
  owner_type        text NOT NULL CHECK (owner_type IN ('shared', 'dedicated')),
  derivation_index  integer UNIQUE,
  fireblocks_vault_id text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  CHECK ((type = 'from-mnemonic') = (derivation_index IS NOT NULL))
);
CREATE UNIQUE INDEX system_wallets_one_shared_per_network_type
  ON system_wallets (network_type, type) WHERE owner_type = 'shared';

CREATE TABLE projects (
  id                 serial PRIMARY KEY,
  project_name       varchar(256) NOT NULL CHECK (length(project_name) > 0),
  wallet_mainnet_id  integer NOT NULL REFERENCES system_wallets (id),
  wallet_testnet_id  integer NOT NULL REFERENCES system_wallets (id),
  created_at         timestamptz NOT NULL DEFAULT now()
);

-- Only a hash of each key is kept. `lookup_id` is the key's public part, used to find the row;
-- the secret part is compared in constant time against `secret_hash`.
CREATE TABLE api_keys (
  id           serial PRIMARY KEY,
  project_id   integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  lookup_id    text NOT NULL UNIQUE,
  secret_hash  bytea NOT NULL,
  masked       varchar(64) NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  revoked_at   timestamptz
);
CREATE UNIQUE INDEX api_keys_one_active_per_project ON api_keys (project_id) WHERE revoked_at IS NULL;

CREATE TABLE users (
  id          serial PRIMARY KEY,
  email       text NOT NULL UNIQUE CHECK (email = lower(email)),
  name        text NOT NULL DEFAULT '',
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE memberships (
  project_id  integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  user_id     integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role        text NOT NULL CHECK (role IN ('admin', 'editor', 'reader')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id);
