import type { MasterKeys } from '#api/crypto/secretBox.ts';
import type { Db } from '#api/db/db.ts';
import { deliverToDestination } from '#api/delivery/deliver.ts';
import type { Claimed, Destination } from '#api/delivery/destination.ts';
import type { DeliverySettings } from '#api/delivery/settings.ts';
import { parseAbiEvent } from '#api/eventNotifier/abiEvent.ts';
import { recordEvent } from '#api/eventNotifier/recordEvent.ts';
import { type RecordRow, type SubscriptionRow, signingSecretsOfSubscription } from '#api/eventNotifier/rows.ts';
import type { EventNotifierSettings } from '#api/eventNotifier/settings.ts';
import type { QueueFor } from '#api/eventNotifier/subscriptionJob.ts';

/** Lanes of one subscription's run, each claiming its own batches (see `RunShape` in delivery/deliver.ts). */
const LANES = 2;

export interface DeliveryDeps {
  db: Db;
  masterKey: MasterKeys;
  settings: DeliverySettings & Pick<EventNotifierSettings, 'backfillHoldMs'>;
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
 * Sends every record of the subscription whose attempt is due through the delivery pipeline (delivery/deliver.ts),
 * then queues itself for the earliest retry still pending. A run claims until nothing is due, so the removal notice
 * of an event it sent follows in the same run. While the subscription backfills, nothing is sent until its hold
 * ends (see `startBackfill` in scanning/scanner.ts).
 */
export async function deliverDue(deps: DeliveryDeps, subscriptionId: string): Promise<DeliveryReport> {
  const { rows } = await deps.db.query<SubscriptionRow & { hold_ends: Date | null }>(
    `SELECT *, CASE WHEN backfill_started_at + $2 * interval '1 millisecond' > now()
                    THEN backfill_started_at + $2 * interval '1 millisecond' END AS hold_ends
       FROM event_notifier_subscriptions WHERE id = $1`,
    [subscriptionId, deps.settings.backfillHoldMs],
  );
  const subscription = rows[0];
  if (!subscription?.webhook_url) return { notified: 0, retrying: 0, failed: 0 };
  // A backfill is stored before its webhooks are sent (up to the hold): come back when the hold ends, unless a
  // delivery is queued already (the one the scan queues as it ends may be queued by now).
  if (subscription.hold_ends) {
    await deps.queue(deps.db.pool, subscriptionId, { runAt: subscription.hold_ends, keepQueued: true });
    return { notified: 0, retrying: 0, failed: 0 };
  }
  const report = await deliverToDestination(
    deps,
    subscriptionDestination(
      { ...subscription, webhook_url: subscription.webhook_url },
      signingSecretsOfSubscription(deps.masterKey, subscription),
    ),
    { lanes: LANES, endAtShortBatch: false },
  );
  if (report.nextAttemptAt) await deps.queue(deps.db.pool, subscriptionId, { runAt: report.nextAttemptAt });
  return { notified: report.delivered, retrying: report.retrying, failed: report.failed };
}

type ClaimedRecord = Claimed & { record: RecordRow };

/**
 * A subscription's own webhook as a destination: its records (`event_notifier_records`), each retried up to the
 * subscription's `webhookMaxRetries` (as it was when the record's round began).
 */
export function subscriptionDestination(
  subscription: SubscriptionRow & { webhook_url: string },
  secrets: string | readonly string[],
): Destination<ClaimedRecord> {
  const id = subscription.id;
  const event = parseAbiEvent(subscription.formatted_abi_event);
  return {
    projectId: subscription.project_id,
    url: subscription.webhook_url,
    secrets,
    logAs: { endpointId: null, subscriptionId: id },

    async claim(db, limit, leaseMs) {
      const { rows } = await db.query<RecordRow>('SELECT * FROM event_notifier_claim_due($1, $2, $3, $4)', [
        id,
        subscription.webhook_enabled,
        limit,
        leaseMs,
      ]);
      return rows.map((record) => ({
        id: record.id,
        roundFailures: record.round_failures,
        maxRetries: record.round_max_retries ?? subscription.webhook_max_retries,
        record,
      }));
    },

    async payloads(_db, claimed) {
      return claimed.map((c) => recordEvent(subscription, event, c.record));
    },

    async record(client, outcomes) {
      // The subscription's row first, then its records, in the order update-subscription-webhook, replays and
      // delete-subscription take them. A batch that failed whole may start the failure streak (and disable the
      // webhook): it takes the row for an update; any other only keeps it from being deleted meanwhile. Deleted
      // already: its records and attempt log went with it, and there is nothing to record.
      const lock = outcomes.some((o) => o.result.ok) ? 'FOR KEY SHARE' : 'FOR NO KEY UPDATE';
      const live = await client.query(`SELECT 1 FROM event_notifier_subscriptions WHERE id = $1 ${lock}`, [id]);
      if (live.rows.length === 0) return false;
      const notified = outcomes.filter((o) => o.result.ok).map((o) => o.claimed.id);
      const failed = outcomes.filter((o) => !o.result.ok);
      if (notified.length > 0) {
        await client.query(
          `UPDATE event_notifier_records
              SET status = 'notified', status_changed_at = now(), updated_at = now(), next_attempt_at = NULL,
                  forced = false, claimed_at = NULL
            WHERE id = ANY($1::uuid[])`,
          [notified],
        );
      }
      if (failed.length > 0) {
        await client.query(
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
          [
            failed.map((f) => f.claimed.id),
            failed.map((f) => (f.result.ok ? '' : f.result.message)),
            failed.map((f) => f.final),
            failed.map((f) => f.delayMs),
          ],
        );
      }
      return true;
    },

    async failureStreak(client, delivered, attemptedAt) {
      // The row is written only when the streak starts or ends: a healthy webhook's batches leave it alone.
      if (delivered) {
        await client.query(
          `UPDATE event_notifier_subscriptions SET webhook_failing_since = NULL
            WHERE id = $1 AND webhook_failing_since IS NOT NULL`,
          [id],
        );
        return null;
      }
      const { rows } = await client.query<{ since: Date | null }>(
        `WITH started AS (
           UPDATE event_notifier_subscriptions SET webhook_failing_since = $2
            WHERE id = $1 AND webhook_failing_since IS NULL RETURNING webhook_failing_since)
         SELECT coalesce((SELECT webhook_failing_since FROM started),
                         (SELECT webhook_failing_since FROM event_notifier_subscriptions WHERE id = $1)) AS since`,
        [id, attemptedAt],
      );
      return rows[0]?.since ?? null;
    },

    async disable(client, reason) {
      const { rows } = await client.query<{
        webhook_url: string;
        webhook_disabled_at: Date;
        webhook_failing_since: Date;
      }>(
        `UPDATE event_notifier_subscriptions
            SET webhook_enabled = false, webhook_disabled_at = now(), webhook_disabled_reason = $2
          WHERE id = $1 AND webhook_enabled
          RETURNING webhook_url, webhook_disabled_at, webhook_failing_since`,
        [id, reason],
      );
      const disabled = rows[0];
      if (!disabled) return undefined;
      await client.query(
        `UPDATE event_notifier_records
            SET status = 'failed', status_changed_at = now(), updated_at = now(), next_attempt_at = NULL,
                claimed_at = NULL, forced = false
          WHERE subscription_id = $1 AND status = 'scanned' AND removed_at IS NULL`,
        [id],
      );
      return {
        eventType: 'subscription.webhook_disabled',
        data: {
          subscription: {
            id,
            webhookURL: disabled.webhook_url,
            disabledReason: reason,
            disabledAt: disabled.webhook_disabled_at.toISOString(),
            failingSince: disabled.webhook_failing_since.toISOString(),
          },
        },
      };
    },

    async nextAttemptAt(db) {
      const { rows } = await db.query<{ at: Date | null }>(
        `SELECT min(next_attempt_at) AS at FROM event_notifier_records
          WHERE subscription_id = $1 AND status = 'scanned' AND next_attempt_at IS NOT NULL AND ($2 OR forced)
            AND removed_at IS NULL`,
        [id, subscription.webhook_enabled],
      );
      return rows[0]?.at ?? null;
    },
  };
}
