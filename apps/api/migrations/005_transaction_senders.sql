-- One row per (system wallet, network) that has ever had a transaction. `wake_requested_at` is set by the
-- execution that queued the sender job and cleared by the sender when it starts: while it is set, a sender is
-- already queued, so accepting another transaction needs no job write (one hot row updated per request made
-- every acceptance contend on it). A request older than 10 s with no sender to clear it is requested again.
CREATE TABLE transaction_senders (
  system_wallet_id   integer NOT NULL REFERENCES system_wallets (id) ON DELETE CASCADE,
  network_id         integer NOT NULL,
  wake_requested_at  timestamptz,
  PRIMARY KEY (system_wallet_id, network_id)
);
