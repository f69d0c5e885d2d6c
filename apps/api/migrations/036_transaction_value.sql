-- Value (wei) on payable functions, inside the spending limits of their activation. A limit of 0 allows no value:
-- an activation made before limits existed allows none until it is activated again with limits.
ALTER TABLE contract_activated_functions
  ADD COLUMN max_value_per_transaction numeric(78, 0) NOT NULL DEFAULT 0
    CHECK (max_value_per_transaction >= 0),
  ADD COLUMN max_value_per_day numeric(78, 0) NOT NULL DEFAULT 0 CHECK (max_value_per_day >= 0);

ALTER TABLE transactions ADD COLUMN value numeric(78, 0) NOT NULL DEFAULT 0 CHECK (value >= 0);

-- The day's spending of a function (transactions/spendingLimits.ts): only transactions that carry value.
CREATE INDEX transactions_function_value_day ON transactions (contract_activated_function_id, created_at)
  WHERE value > 0;
