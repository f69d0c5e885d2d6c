-- Custody beyond the deployment mnemonic. A custodian that signs and broadcasts itself (Fireblocks) gets one
-- custodian transaction per row: `custody_id` is its id there, `custody_status`/`custody_sub_status` what it last
-- said, and `custody_key_attempt` numbers the Idempotency-Key of the row's create request (a retry after a 5xx
-- needs a new key; 0: not sent yet). `custody_provider` is set when the row is accepted for such a wallet, so the
-- API can show `custody` from the first moment.
ALTER TABLE transactions
  ADD COLUMN custody_provider text,
  ADD COLUMN custody_id text,
  ADD COLUMN custody_status text,
  ADD COLUMN custody_sub_status text,
  -- When the custodian last changed what it says (its own clock, ms): an older webhook arriving late changes nothing.
  ADD COLUMN custody_updated_ms bigint,
  ADD COLUMN custody_key_attempt integer NOT NULL DEFAULT 0,
  ADD COLUMN custody_checked_at timestamptz;

-- The custodian's webhooks name its transaction id; one row per custodian transaction.
CREATE UNIQUE INDEX transactions_custody_id ON transactions (custody_provider, custody_id) WHERE custody_id IS NOT NULL;

-- A project whose custodian-side wallets are being made (a vault account in Fireblocks): its id is reserved and the
-- custodian's objects are named after it, so a create-project that crashed or timed out half way, run again with
-- the same name and wallet type, finds them instead of making second ones. The project row itself is written only
-- when every custodian call has succeeded, so there is never a half-made project.
CREATE TABLE custody_provisionings (
  project_id    integer PRIMARY KEY,
  project_name  varchar(256) NOT NULL,
  wallet_type   text NOT NULL,
  owner_type    text NOT NULL,
  started_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX custody_provisionings_name ON custody_provisionings (project_name, wallet_type, owner_type);

