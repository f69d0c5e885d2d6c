-- Event notifier: subscriptions (what to scan, where to deliver) and the records they find.

CREATE TABLE event_notifier_subscriptions (
  id                        uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id                integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  subscription_name         varchar(256) NOT NULL,
  network_id                integer NOT NULL,
  address                   text NOT NULL,
  formatted_abi_event       text NOT NULL,
  scan_enabled              boolean NOT NULL DEFAULT true,
  initial_block_number      bigint NOT NULL CHECK (initial_block_number >= 0),
  scan_interval             integer NOT NULL CHECK (scan_interval >= 5),
  webhook_enabled           boolean NOT NULL,
  webhook_url               text,
  webhook_max_retries       integer NOT NULL CHECK (webhook_max_retries >= 0),
  -- The secret encrypted with the master key (context: the subscription id); `webhook_secret_masked` is shown.
  webhook_secret            bytea NOT NULL,
  webhook_secret_masked     text NOT NULL,
  scan_status               text NOT NULL DEFAULT 'idle' CHECK (scan_status IN ('idle', 'scanning', 'failed')),
  last_scanned_block        bigint,
  last_scanned_at           timestamptz,
  last_scan_failure_message text,
  next_scan_at              timestamptz,
  created_at                timestamptz NOT NULL DEFAULT now(),
  CHECK (NOT webhook_enabled OR webhook_url IS NOT NULL)
);
CREATE INDEX event_notifier_subscriptions_project ON event_notifier_subscriptions (project_id, created_at DESC);

CREATE TABLE event_notifier_records (
  id                                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  subscription_id                   uuid NOT NULL REFERENCES event_notifier_subscriptions (id) ON DELETE CASCADE,
  status                            text NOT NULL DEFAULT 'scanned' CHECK (status IN ('scanned', 'notified', 'failed')),
  status_changed_at                 timestamptz NOT NULL DEFAULT now(),
  block_timestamp                   timestamptz NOT NULL,
  transaction_hash                  varchar(66) NOT NULL,
  block_number                      bigint NOT NULL,
  transaction_index                 integer NOT NULL,
  log_index                         integer NOT NULL,
  decoded_log                       jsonb NOT NULL,
  last_notification_failed_at       timestamptz,
  last_notification_failure_message text,
  notification_failure_count        integer NOT NULL DEFAULT 0,
  -- Delivery bookkeeping (not in the API): when the next attempt is due (NULL: nothing to send), failures in
  -- the current round, the retries this round allows (NULL: the subscription's), and whether a forced resend
  -- sends it even while the webhook is disabled.
  next_attempt_at                   timestamptz,
  round_failures                    integer NOT NULL DEFAULT 0,
  round_max_retries                 integer,
  forced                            boolean NOT NULL DEFAULT false,
  created_at                        timestamptz NOT NULL DEFAULT now(),
  updated_at                        timestamptz NOT NULL DEFAULT now(),
  UNIQUE (subscription_id, transaction_hash, log_index)
);
CREATE INDEX event_notifier_records_newest ON event_notifier_records (subscription_id, block_number DESC, log_index DESC);
CREATE INDEX event_notifier_records_due ON event_notifier_records (subscription_id, next_attempt_at)
  WHERE next_attempt_at IS NOT NULL;
