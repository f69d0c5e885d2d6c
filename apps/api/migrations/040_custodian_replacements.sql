-- Cancel and speed-up of a transaction its custodian signs and sends (Fireblocks): a held one is cancelled at the
-- custodian; a sent one is replaced at its nonce by a custodian transaction of its own (a drop, a 0-value transfer
-- to the wallet itself; a boost, the same call with higher fees). Its custodian id, while its hash is not known yet.
ALTER TABLE transactions ADD COLUMN custody_replacement_id text;
