-- AWS KMS wallets (DESIGN §6, a signer custody): the key never leaves KMS; the wallet row names it by its ARN, and
-- its address is derived from the key's public key when the wallet is made.
ALTER TABLE system_wallets DROP CONSTRAINT system_wallets_type_check;
ALTER TABLE system_wallets
  ADD CONSTRAINT system_wallets_type_check CHECK (type IN ('fireblocks', 'from-mnemonic', 'aws-kms')),
  ADD COLUMN kms_key_arn text,
  ADD CONSTRAINT system_wallets_kms_key CHECK ((type = 'aws-kms') = (kms_key_arn IS NOT NULL));

-- Keys made so far for a project being created (`{"mainnet": <key ARN>, …}`): a creation run again after a crash
-- between CreateKey and CreateAlias takes the key it made instead of making a second one.
ALTER TABLE custody_provisionings ADD COLUMN custody_refs jsonb NOT NULL DEFAULT '{}';
