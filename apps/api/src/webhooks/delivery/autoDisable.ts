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
