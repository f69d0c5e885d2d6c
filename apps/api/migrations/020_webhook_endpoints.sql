-- Webhook endpoints of a project (DESIGN §7): URLs that receive the event types they choose, each signed with its
-- own secret. The secret is encrypted with the master key (context: the endpoint id); during a rotation's grace
-- period the previous secret signs too, until `previous_secret_expires_at`.
CREATE TABLE webhook_endpoints (
  id                          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id                  integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  url                         text NOT NULL,
  description                 varchar(512) NOT NULL DEFAULT '',
  event_types                 text[] NOT NULL CHECK (cardinality(event_types) > 0),
  -- The subscriptions whose events (event_notifier.*) this endpoint takes; NULL: every subscription.
  subscription_ids            uuid[],
  enabled                     boolean NOT NULL DEFAULT true,
  secret                      bytea NOT NULL,
  secret_masked               text NOT NULL,
  previous_secret             bytea,
  previous_secret_expires_at  timestamptz,
  -- Why and when the platform disabled it (NULL while enabled, or disabled by a user).
  disabled_reason             text,
  disabled_at                 timestamptz,
  -- The first failed attempt since the last delivered one (NULL: the last attempt succeeded, or none yet).
  failing_since               timestamptz,
  created_at                  timestamptz NOT NULL DEFAULT now(),
  updated_at                  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_project ON webhook_endpoints (project_id, created_at DESC, id);
-- The triggers that write messages look up a project's endpoints of one event type.
CREATE INDEX webhook_endpoints_event_types ON webhook_endpoints USING gin (event_types);
