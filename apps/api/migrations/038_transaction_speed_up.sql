-- A speed-up asked for (speed-up-transaction): the monitor re-signs the waiting transaction at its nonce with its
-- fees multiplied by this (never above the network's fee cap), sends it, and clears the request.
ALTER TABLE transactions ADD COLUMN speed_up_multiplier numeric(4, 2)
  CHECK (speed_up_multiplier BETWEEN 1.1 AND 10);
