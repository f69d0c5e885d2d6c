-- Steps that wait for each other: a transaction may name another of its project and network that must succeed
-- before it is estimated and sent (execute-transaction's afterTransactionId). If that one ends any other way, this
-- one ends broadcast-failed, never sent.
ALTER TABLE transactions ADD COLUMN after_transaction_id uuid REFERENCES transactions (id);
CREATE INDEX transactions_after ON transactions (after_transaction_id) WHERE after_transaction_id IS NOT NULL;
