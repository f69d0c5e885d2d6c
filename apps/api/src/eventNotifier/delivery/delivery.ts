import type { Db } from '#api/db/db.ts';
import { parseAbiEvent } from '#api/eventNotifier/abiEvent.ts';
import { type RecordRow, type SubscriptionRow, signingSecretsOfSubscription } from '#api/eventNotifier/rows.ts';
import { deliveryLeaseMs, type EventNotifierSettings } from '#api/eventNotifier/settings.ts';
import type { QueueFor } from '#api/eventNotifier/subscriptionJob.ts';
import { mapLimit } from '#api/lib/mapLimit.ts';
import { disableSubscriptionWebhookIfFailingTooLong } from '#api/webhooks/delivery/autoDisable.ts';
import { recordAttempts } from '#api/webhooks/log/recordAttempts.ts';
import { recordEvent } from './recordEvent.ts';
import { type AttemptResult, countRefusedWebhook, retryDelayMs, sendWebhook } from './webhookSender.ts';
import { webhookUrlRefusal } from './webhookUrlPolicy.ts';

const LANES = 2;

export interface DeliveryDeps {
  db: Db;
  masterKey: Buffer;
  settings: EventNotifierSettings;
  /** Queues the subscription's delivery again (at the end of a hold, or for the earliest retry). */
  queue: QueueFor;
  signal?: AbortSignal;
}

export interface DeliveryReport {
  notified: number;
  retrying: number;
  failed: number;
}

/**
 * Sends every record of the subscription whose attempt is due, in batches. A batch is claimed by pushing its
 * `next_attempt_at` past the attempt's timeout (`FOR UPDATE SKIP LOCKED`), so several workers never send the same
 * record at once, and a worker that dies mid-batch only delays those records. Then queues itself for the
 * earliest retry still pending. While the subscription backfills, nothing is sent until its hold ends (see
 * `startBackfill` in scanning/scanner.ts).
 */
export async function deliverDue(deps: DeliveryDeps, subscriptionId: string): Promise<DeliveryReport> {
  const report: DeliveryReport = { notified: 0, retrying: 0, failed: 0 };
  const { rows } = await deps.db.query<SubscriptionRow & { hold_ends: Date | null }>(
    `SELECT *, CASE WHEN backfill_started_at + $2 * interval '1 millisecond' > now()
                    THEN backfill_started_at + $2 * interval '1 millisecond' END AS hold_ends
       FROM event_notifier_subscriptions WHERE id = $1`,
    [subscriptionId, deps.settings.backfillHoldMs],
  );
  const subscription = rows[0];
  if (!subscription?.webhook_url) return report;
  // A backfill is stored before its webhooks are sent (up to the hold): come back when the hold ends, unless a
  // delivery is queued already (the one the scan queues as it ends may be queued by now).
  if (subscription.hold_ends) {
    await deps.queue(deps.db.pool, subscriptionId, { runAt: subscription.hold_ends, keepQueued: true });
    return report;
  }
  const url = subscription.webhook_url;
  const secret = signingSecretsOfSubscription(deps.masterKey, subscription);
  const event = parseAbiEvent(subscription.formatted_abi_event);
  const refusal = await webhookUrlRefusal(url, deps.settings);
  const leaseMs = deliveryLeaseMs(deps.settings);
  const batchSize = deps.settings.deliveryConcurrency * 2;

  // Set once every attempt has failed for WEBHOOK_DISABLE_AFTER_HOURS: the lanes stop.
  let disabled = false;
  const drain = async (concurrency: number) => {
    while (!deps.signal?.aborted && !disabled) {
      const claimed = await deps.db.query<RecordRow>('SELECT * FROM event_notifier_claim_due($1, $2, $3, $4)', [
        subscriptionId,
        subscription.webhook_enabled,
        batchSize,
        leaseMs,
      ]);
      if (claimed.rows.length === 0) break;
      const attemptedAt = new Date();
      const results = await mapLimit(claimed.rows, concurrency, (record) =>
        refusal
          ? refused(refusal)
          : sendWebhook({
              url,
              id: record.id,
              secret,
              timeoutMs: deps.settings.webhookTimeoutMs,
              allowance: deps.settings.allowPrivateWebhookAddresses,
              event: recordEvent(subscription, event, record),
            }),
      );
      await recordResults(deps, subscription, claimed.rows, results, report);
      if (deps.settings.webhookAttemptLog) {
        await recordAttempts(
          deps.db,
          claimed.rows.map((record, i) => ({
            projectId: subscription.project_id,
            messageId: record.id,
            endpointId: null,
            subscriptionId: subscription.id,
            eventType: record.removal_of ? 'event_notifier.event.removed' : 'event_notifier.event',
            url,
            attemptedAt,
            result: results[i] as AttemptResult,
          })),
        );
      }
      if (await trackFailures(deps, subscriptionId, results, attemptedAt)) disabled = true;
    }
  };
  // Lanes, each claiming its own batches: one lane's database round trips overlap the other's HTTP requests.
  const perLane = Math.max(1, Math.ceil(deps.settings.deliveryConcurrency / LANES));
  await Promise.all(Array.from({ length: LANES }, () => drain(perLane)));

  const next = await deps.db.query<{ at: Date | null }>(
    `SELECT min(next_attempt_at) AS at FROM event_notifier_records
      WHERE subscription_id = $1 AND status = 'scanned' AND next_attempt_at IS NOT NULL AND ($2 OR forced)
        AND removed_at IS NULL`,
    [subscriptionId, subscription.webhook_enabled],
  );
  const at = next.rows[0]?.at;
  if (at && !disabled) await deps.queue(deps.db.pool, subscriptionId, { runAt: at });
  return report;
}

/**
 * The webhook's failure streak: any delivered attempt ends it; otherwise it starts with this batch's first attempt,
 * and once it is WEBHOOK_DISABLE_AFTER_HOURS old the webhook is disabled. True when it was.
 */
async function trackFailures(
  deps: DeliveryDeps,
  subscriptionId: string,
  results: AttemptResult[],
  attemptedAt: Date,
): Promise<boolean> {
  // The row is written only when the streak starts or ends: a healthy webhook's batches leave it alone.
  if (results.some((r) => r.ok)) {
    await deps.db.query(
      `UPDATE event_notifier_subscriptions SET webhook_failing_since = NULL
        WHERE id = $1 AND webhook_failing_since IS NOT NULL`,
      [subscriptionId],
    );
    return false;
  }
  return deps.db.transaction(async (client) => {
    await client.query(
      `UPDATE event_notifier_subscriptions SET webhook_failing_since = $2
        WHERE id = $1 AND webhook_failing_since IS NULL`,
      [subscriptionId, attemptedAt],
    );
    return disableSubscriptionWebhookIfFailingTooLong(client, subscriptionId, deps.settings.webhookDisableAfterHours);
  });
}

function refused(reason: string): Promise<AttemptResult> {
  countRefusedWebhook();
  return Promise.resolve({ ok: false, outcome: 'refused', message: `Webhook URL refused: ${reason}` });
}

async function recordResults(
  deps: DeliveryDeps,
  subscription: SubscriptionRow,
  records: RecordRow[],
  results: AttemptResult[],
  report: DeliveryReport,
): Promise<void> {
  const notified: string[] = [];
  const failedIds: string[] = [];
  const messages: string[] = [];
  const final: boolean[] = [];
  const delays: number[] = [];
  records.forEach((record, i) => {
    const result = results[i] as AttemptResult;
    if (result.ok) {
      notified.push(record.id);
      return;
    }
    const failures = record.round_failures + 1;
    const isFinal = failures > (record.round_max_retries ?? subscription.webhook_max_retries);
    failedIds.push(record.id);
    messages.push(result.message);
    final.push(isFinal);
    delays.push(
      retryDelayMs(
        failures,
        deps.settings.webhookBackoffBaseMs,
        deps.settings.webhookBackoffMaxMs,
        result.retryAfterMs,
      ),
    );
    if (isFinal) report.failed++;
    else report.retrying++;
  });
  report.notified += notified.length;
  if (notified.length > 0) {
    await deps.db.query(
      `UPDATE event_notifier_records
          SET status = 'notified', status_changed_at = now(), updated_at = now(), next_attempt_at = NULL, forced = false,
              claimed_at = NULL
        WHERE id = ANY($1::uuid[])`,
      [notified],
    );
  }
  if (failedIds.length > 0) {
    await deps.db.query(
      `UPDATE event_notifier_records r
          SET notification_failure_count = r.notification_failure_count + 1,
              round_failures = r.round_failures + 1,
              last_notification_failed_at = now(),
              last_notification_failure_message = u.message,
              updated_at = now(),
              claimed_at = NULL,
              -- A record removed while this attempt was in flight is not tried again: its removal notice follows.
              status = CASE WHEN (u.final OR r.removed_at IS NOT NULL) THEN 'failed' ELSE r.status END,
              status_changed_at = CASE WHEN (u.final OR r.removed_at IS NOT NULL) THEN now() ELSE r.status_changed_at END,
              next_attempt_at = CASE WHEN (u.final OR r.removed_at IS NOT NULL) THEN NULL ELSE now() + u.delay * interval '1 millisecond' END,
              forced = CASE WHEN (u.final OR r.removed_at IS NOT NULL) THEN false ELSE r.forced END
         FROM unnest($1::uuid[], $2::text[], $3::bool[], $4::int8[]) AS u(id, message, final, delay)
        WHERE r.id = u.id`,
      [failedIds, messages, final, delays],
    );
  }
}
