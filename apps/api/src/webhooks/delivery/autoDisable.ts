import type { Queryable } from '#api/db/db.ts';

/**
 * Disables an endpoint whose every attempt has failed for `afterHours` (WEBHOOK_DISABLE_AFTER_HOURS): it says so in
 * its state (`disabledReason`, `disabledAt`), its pending deliveries become failed (kept for a replay once it is
 * enabled again), and the project's other endpoints that take `endpoint.disabled` are told. True when it did.
 */
export async function disableIfFailingTooLong(client: Queryable, endpointId: string, afterHours: number) {
  const { rows } = await client.query<{
    project_id: number;
    url: string;
    disabled_reason: string;
    disabled_at: Date;
    failing_since: Date;
  }>(
    `UPDATE webhook_endpoints
        SET enabled = false, disabled_at = now(), updated_at = now(),
            disabled_reason = 'Every attempt failed for ' || $2 || ' hours, since '
                              || to_char(failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
      WHERE id = $1 AND enabled AND failing_since <= now() - $2 * interval '1 hour'
      RETURNING project_id, url, disabled_reason, disabled_at, failing_since`,
    [endpointId, afterHours],
  );
  const disabled = rows[0];
  if (!disabled) return false;
  await client.query(
    `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = now()
      WHERE endpoint_id = $1 AND status = 'pending'`,
    [endpointId],
  );
  const data = {
    endpoint: {
      id: endpointId,
      url: disabled.url,
      disabledReason: disabled.disabled_reason,
      disabledAt: disabled.disabled_at.toISOString(),
      failingSince: disabled.failing_since.toISOString(),
    },
  };
  await client.query(
    `SELECT webhook_write_message($1, 'endpoint.disabled', NULL,
                                  jsonb_populate_record(NULL::webhook_messages, jsonb_build_object('data', $2::jsonb)))`,
    [disabled.project_id, JSON.stringify(data)],
  );
  return true;
}

/**
 * The same for a subscription's own webhook: one whose every attempt has failed for `afterHours` is disabled
 * (`webhookEnabled` false, `webhookDisabledReason`, `webhookDisabledAt`), its records waiting for an attempt become
 * failed (sent again by resend-failed-webhook or replay-webhook-messages once it is enabled), and the project's
 * endpoints that take `endpoint.disabled` are told. True when it did.
 */
export async function disableSubscriptionWebhookIfFailingTooLong(
  client: Queryable,
  subscriptionId: string,
  afterHours: number,
) {
  const { rows } = await client.query<{
    project_id: number;
    webhook_url: string;
    webhook_disabled_reason: string;
    webhook_disabled_at: Date;
    webhook_failing_since: Date;
  }>(
    `UPDATE event_notifier_subscriptions
        SET webhook_enabled = false, webhook_disabled_at = now(),
            webhook_disabled_reason = 'Every attempt failed for ' || $2 || ' hours, since '
                                      || to_char(webhook_failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
      WHERE id = $1 AND webhook_enabled AND webhook_failing_since <= now() - $2 * interval '1 hour'
      RETURNING project_id, webhook_url, webhook_disabled_reason, webhook_disabled_at, webhook_failing_since`,
    [subscriptionId, afterHours],
  );
  const disabled = rows[0];
  if (!disabled) return false;
  await client.query(
    `UPDATE event_notifier_records
        SET status = 'failed', status_changed_at = now(), updated_at = now(), next_attempt_at = NULL,
            claimed_at = NULL, forced = false
      WHERE subscription_id = $1 AND status = 'scanned' AND removed_at IS NULL`,
    [subscriptionId],
  );
  const data = {
    subscription: {
      id: subscriptionId,
      webhookURL: disabled.webhook_url,
      disabledReason: disabled.webhook_disabled_reason,
      disabledAt: disabled.webhook_disabled_at.toISOString(),
      failingSince: disabled.webhook_failing_since.toISOString(),
    },
  };
  await client.query(
    `SELECT webhook_write_message($1, 'endpoint.disabled', NULL,
                                  jsonb_populate_record(NULL::webhook_messages, jsonb_build_object('data', $2::jsonb)))`,
    [disabled.project_id, JSON.stringify(data)],
  );
  return true;
}
