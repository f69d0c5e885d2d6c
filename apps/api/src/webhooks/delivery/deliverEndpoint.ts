import type { MasterKeys } from '#api/crypto/secretBox.ts';
import type { Db, Queryable } from '#api/db/db.ts';
import { deliverToDestination } from '#api/delivery/deliver.ts';
import type { Claimed, Destination } from '#api/delivery/destination.ts';
import type { DeliverySettings } from '#api/delivery/settings.ts';
import type { EnqueueOptions } from '#api/jobs/defineJob.ts';
import { type EndpointRow, signingSecretsOf } from '#api/webhooks/endpoints/endpointRows.ts';
import { messagePayloads } from './messagePayloads.ts';

/** Retries of one message to one endpoint before its delivery is marked failed (kept for a replay). */
export const ENDPOINT_MAX_RETRIES = 10;

export type EndpointQueue = (client: Queryable, endpointId: string, options?: EnqueueOptions) => Promise<void>;

export interface EndpointDeliveryDeps {
  db: Db;
  masterKey: MasterKeys;
  settings: DeliverySettings;
  queue: EndpointQueue;
  signal?: AbortSignal;
}

export interface EndpointDeliveryReport {
  delivered: number;
  retrying: number;
  failed: number;
  disabled: boolean;
}

/**
 * Sends every due delivery of the endpoint through the delivery pipeline (delivery/deliver.ts), signed with the
 * endpoint's secrets (both during a rotation's grace period). Then queues itself for the earliest retry still
 * pending. One run ends at a batch that was not full: the project's run (deliverProject.ts) looks again.
 */
export async function deliverEndpoint(deps: EndpointDeliveryDeps, endpointId: string): Promise<EndpointDeliveryReport> {
  const { rows } = await deps.db.query<EndpointRow>('SELECT * FROM webhook_endpoints WHERE id = $1', [endpointId]);
  const endpoint = rows[0];
  if (!endpoint?.enabled) return { delivered: 0, retrying: 0, failed: 0, disabled: false };
  const { nextAttemptAt, ...report } = await deliverToDestination(
    deps,
    endpointDestination(endpoint, signingSecretsOf(deps.masterKey, endpoint)),
    { lanes: 1, endAtShortBatch: true },
  );
  if (nextAttemptAt) await deps.queue(deps.db.pool, endpointId, { runAt: nextAttemptAt });
  return report;
}

/** A project's webhook endpoint as a destination: its deliveries (`webhook_deliveries`) of the project's messages. */
export function endpointDestination(endpoint: EndpointRow, secrets: readonly string[]): Destination {
  const id = endpoint.id;
  return {
    projectId: endpoint.project_id,
    url: endpoint.url,
    secrets,
    logAs: { endpointId: id, subscriptionId: null },

    async claim(db, limit, leaseMs) {
      const { rows } = await db.query<Claimed>(
        `WITH due AS (
           SELECT message_id FROM webhook_deliveries
            WHERE endpoint_id = $1 AND status = 'pending' AND next_attempt_at <= now()
            ORDER BY next_attempt_at, message_id LIMIT $2 FOR UPDATE SKIP LOCKED)
         UPDATE webhook_deliveries d SET next_attempt_at = now() + $3 * interval '1 millisecond'
           FROM due WHERE d.endpoint_id = $1 AND d.message_id = due.message_id
         RETURNING d.message_id AS id, d.round_failures AS "roundFailures", $4::int AS "maxRetries"`,
        [id, limit, leaseMs, ENDPOINT_MAX_RETRIES],
      );
      return rows;
    },

    async payloads(db, claimed) {
      const found = await messagePayloads(
        db,
        claimed.map((c) => c.id),
      );
      return claimed.map((c) => found.get(c.id));
    },

    async record(client, outcomes) {
      // The endpoint's row before its deliveries' rows, in the order delete-webhook-endpoint takes them (it deletes
      // the endpoint, then its deliveries by cascade): the other order deadlocks with a deletion. Deleted meanwhile:
      // its deliveries went with it, and there is nothing to record.
      const live = await client.query('SELECT 1 FROM webhook_endpoints WHERE id = $1 FOR NO KEY UPDATE', [id]);
      if (live.rows.length === 0) return false;
      const delivered = outcomes.filter((o) => o.result.ok).map((o) => o.claimed.id);
      const failed = outcomes.filter((o) => !o.result.ok);
      if (delivered.length > 0) {
        await client.query(
          `UPDATE webhook_deliveries
              SET status = 'delivered', attempts = attempts + 1, next_attempt_at = NULL, updated_at = now()
            WHERE endpoint_id = $1 AND message_id = ANY($2::uuid[])`,
          [id, delivered],
        );
      }
      if (failed.length > 0) {
        await client.query(
          `UPDATE webhook_deliveries d
              SET attempts = d.attempts + 1, round_failures = d.round_failures + 1, updated_at = now(),
                  status = CASE WHEN u.final THEN 'failed' ELSE 'pending' END,
                  next_attempt_at = CASE WHEN u.final THEN NULL ELSE now() + u.delay * interval '1 millisecond' END
             FROM unnest($2::uuid[], $3::bool[], $4::int8[]) AS u(id, final, delay)
            WHERE d.endpoint_id = $1 AND d.message_id = u.id`,
          [id, failed.map((f) => f.claimed.id), failed.map((f) => f.final), failed.map((f) => f.delayMs)],
        );
      }
      return true;
    },

    async failureStreak(client, delivered, attemptedAt) {
      const { rows } = await client.query<{ failing_since: Date | null }>(
        `UPDATE webhook_endpoints
            SET failing_since = CASE WHEN $2 THEN NULL ELSE coalesce(failing_since, $3) END
          WHERE id = $1 RETURNING failing_since`,
        [id, delivered, attemptedAt],
      );
      return rows[0]?.failing_since ?? null;
    },

    async disable(client, reason) {
      const { rows } = await client.query<{ url: string; disabled_at: Date; failing_since: Date }>(
        `UPDATE webhook_endpoints SET enabled = false, disabled_at = now(), updated_at = now(), disabled_reason = $2
          WHERE id = $1 AND enabled RETURNING url, disabled_at, failing_since`,
        [id, reason],
      );
      const disabled = rows[0];
      if (!disabled) return undefined;
      await client.query(
        `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = now()
          WHERE endpoint_id = $1 AND status = 'pending'`,
        [id],
      );
      return {
        eventType: 'endpoint.disabled',
        data: {
          endpoint: {
            id,
            url: disabled.url,
            disabledReason: reason,
            disabledAt: disabled.disabled_at.toISOString(),
            failingSince: disabled.failing_since.toISOString(),
          },
        },
      };
    },

    async nextAttemptAt(db) {
      const { rows } = await db.query<{ at: Date | null }>(
        `SELECT min(next_attempt_at) AS at FROM webhook_deliveries
          WHERE endpoint_id = $1 AND status = 'pending' AND next_attempt_at IS NOT NULL`,
        [id],
      );
      return rows[0]?.at ?? null;
    },
  };
}
