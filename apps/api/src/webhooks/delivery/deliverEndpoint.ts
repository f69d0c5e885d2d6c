import type { Db, Queryable } from '#api/db/db.ts';
import {
  type AttemptResult,
  countRefusedWebhook,
  retryDelayMs,
  sendWebhook,
} from '#api/eventNotifier/delivery/webhookSender.ts';
import { webhookUrlRefusal } from '#api/eventNotifier/delivery/webhookUrlPolicy.ts';
import { deliveryLeaseMs, type EventNotifierSettings } from '#api/eventNotifier/settings.ts';
import type { EnqueueOptions } from '#api/jobs/defineJob.ts';
import { mapLimit } from '#api/lib/mapLimit.ts';
import { type EndpointRow, signingSecretsOf } from '#api/webhooks/endpoints/endpointRows.ts';
import { recordAttempts } from '#api/webhooks/log/recordAttempts.ts';
import { disableIfFailingTooLong } from './autoDisable.ts';
import { messagePayloads } from './messagePayloads.ts';

/** Retries of one message to one endpoint before its delivery is marked failed (kept for a replay). */
export const ENDPOINT_MAX_RETRIES = 10;

export type EndpointQueue = (client: Queryable, endpointId: string, options?: EnqueueOptions) => Promise<void>;

export interface EndpointDeliveryDeps {
  db: Db;
  masterKey: Buffer;
  settings: EventNotifierSettings;
  queue: EndpointQueue;
  signal?: AbortSignal;
}

export interface EndpointDeliveryReport {
  delivered: number;
  retrying: number;
  failed: number;
  disabled: boolean;
}

interface Claimed {
  message_id: string;
  round_failures: number;
}

/**
 * Sends every due delivery of the endpoint, in batches claimed with `FOR UPDATE SKIP LOCKED` (several workers never
 * send one delivery at once), signed with the endpoint's secrets (both during a rotation's grace period), each
 * attempt written to the attempt log. Then queues itself for the earliest retry still pending.
 */
export async function deliverEndpoint(deps: EndpointDeliveryDeps, endpointId: string): Promise<EndpointDeliveryReport> {
  const report: EndpointDeliveryReport = { delivered: 0, retrying: 0, failed: 0, disabled: false };
  const { rows } = await deps.db.query<EndpointRow>('SELECT * FROM webhook_endpoints WHERE id = $1', [endpointId]);
  const endpoint = rows[0];
  if (!endpoint?.enabled) return report;
  const secrets = signingSecretsOf(deps.masterKey, endpoint);
  const refusal = await webhookUrlRefusal(endpoint.url, deps.settings);
  const batchSize = deps.settings.deliveryConcurrency * 2;
  while (!deps.signal?.aborted && !report.disabled) {
    const claimed = await deps.db.query<Claimed>(
      `WITH due AS (
         SELECT message_id FROM webhook_deliveries
          WHERE endpoint_id = $1 AND status = 'pending' AND next_attempt_at <= now()
          ORDER BY next_attempt_at, message_id LIMIT $2 FOR UPDATE SKIP LOCKED)
       UPDATE webhook_deliveries d SET next_attempt_at = now() + $3 * interval '1 millisecond'
         FROM due WHERE d.endpoint_id = $1 AND d.message_id = due.message_id
       RETURNING d.message_id, d.round_failures`,
      [endpointId, batchSize, deliveryLeaseMs(deps.settings)],
    );
    if (claimed.rows.length === 0) break;
    const payloads = await messagePayloads(
      deps.db,
      claimed.rows.map((c) => c.message_id),
    );
    const attemptedAt = new Date();
    const results = await mapLimit(claimed.rows, deps.settings.deliveryConcurrency, (c): Promise<AttemptResult> => {
      const event = payloads.get(c.message_id);
      if (!event) return Promise.resolve({ ok: false, message: 'The event of this message no longer exists' });
      if (refusal) {
        countRefusedWebhook();
        return Promise.resolve({ ok: false, outcome: 'refused', message: `Webhook URL refused: ${refusal}` });
      }
      return sendWebhook({
        url: endpoint.url,
        id: c.message_id,
        secret: secrets,
        timeoutMs: deps.settings.webhookTimeoutMs,
        allowance: deps.settings.allowPrivateWebhookAddresses,
        event,
      });
    });
    await recordOutcomes(deps, endpoint, claimed.rows, results, payloads, attemptedAt, report);
    // Fewer than a batch: nothing else was due. What became due since is found by the next look (the project's run
    // looks again; alone, the retry below is queued for now).
    if (claimed.rows.length < batchSize) break;
  }
  if (report.disabled) return report;
  const next = await deps.db.query<{ at: Date | null }>(
    `SELECT min(next_attempt_at) AS at FROM webhook_deliveries
      WHERE endpoint_id = $1 AND status = 'pending' AND next_attempt_at IS NOT NULL`,
    [endpointId],
  );
  const at = next.rows[0]?.at;
  if (at) await deps.queue(deps.db.pool, endpointId, { runAt: at });
  return report;
}

async function recordOutcomes(
  deps: EndpointDeliveryDeps,
  endpoint: EndpointRow,
  claimed: Claimed[],
  results: AttemptResult[],
  payloads: Map<string, { type: string }>,
  attemptedAt: Date,
  report: EndpointDeliveryReport,
): Promise<void> {
  const delivered: string[] = [];
  const failed: { id: string; final: boolean; delay: number }[] = [];
  claimed.forEach((c, i) => {
    const result = results[i] as AttemptResult;
    if (result.ok) {
      delivered.push(c.message_id);
      return;
    }
    const failures = c.round_failures + 1;
    const final = failures > ENDPOINT_MAX_RETRIES || !payloads.has(c.message_id);
    const delay = retryDelayMs(
      failures,
      deps.settings.webhookBackoffBaseMs,
      deps.settings.webhookBackoffMaxMs,
      result.retryAfterMs,
    );
    failed.push({ id: c.message_id, final, delay });
  });
  await deps.db.transaction(async (client) => {
    // The endpoint's row before its deliveries' rows, in the order delete-webhook-endpoint takes them (it deletes
    // the endpoint, then its deliveries by cascade): the other order deadlocks with a deletion. Deleted meanwhile:
    // its deliveries went with it, and there is nothing to record.
    const live = await client.query('SELECT 1 FROM webhook_endpoints WHERE id = $1 FOR NO KEY UPDATE', [endpoint.id]);
    if (live.rows.length === 0) return;
    report.delivered += delivered.length;
    for (const f of failed) {
      if (f.final) report.failed++;
      else report.retrying++;
    }
    if (delivered.length > 0) {
      await client.query(
        `UPDATE webhook_deliveries
            SET status = 'delivered', attempts = attempts + 1, next_attempt_at = NULL, updated_at = now()
          WHERE endpoint_id = $1 AND message_id = ANY($2::uuid[])`,
        [endpoint.id, delivered],
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
        [endpoint.id, failed.map((f) => f.id), failed.map((f) => f.final), failed.map((f) => f.delay)],
      );
    }
    if (deps.settings.webhookAttemptLog) {
      await recordAttempts(
        client,
        claimed.map((c, i) => ({
          projectId: endpoint.project_id,
          messageId: c.message_id,
          endpointId: endpoint.id,
          subscriptionId: null,
          eventType: payloads.get(c.message_id)?.type ?? 'unknown',
          url: endpoint.url,
          attemptedAt,
          result: results[i] as AttemptResult,
        })),
      );
    }
    // Any delivered attempt ends a failure streak; otherwise the streak starts with this batch's first attempt.
    await client.query(
      `UPDATE webhook_endpoints
          SET failing_since = CASE WHEN $2 THEN NULL ELSE coalesce(failing_since, $3) END
        WHERE id = $1`,
      [endpoint.id, delivered.length > 0, attemptedAt],
    );
    if (delivered.length === 0) {
      report.disabled = await disableIfFailingTooLong(client, endpoint.id, deps.settings.webhookDisableAfterHours);
    }
  });
}
