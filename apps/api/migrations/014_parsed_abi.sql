-- The parsed form of each contract's ABI (viem's JSON ABI, structs resolved), stored at import, and of each
-- activated function, stored at activation: activation, execution and revert decoding read these instead of
-- parsing the human-readable text again. NULL on rows from before; they are filled the first time they are needed.
ALTER TABLE contracts ADD COLUMN abi jsonb;
ALTER TABLE contract_activated_functions ADD COLUMN abi_function jsonb;
