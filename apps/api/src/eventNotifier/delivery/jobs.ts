import { deliverySettingsOf } from '#api/delivery/settings.ts';
import {
  perSubscriptionProject,
  projectOfSubscription,
  queueFor,
  SubscriptionPayload,
  settingsOf,
} from '#api/eventNotifier/subscriptionJob.ts';
import { defineJob } from '#api/jobs/defineJob.ts';
import { deliverDue } from './delivery.ts';

// Slots of a project's concurrent deliveries: (class, hash of "<projectId>:<slot>").
const DELIVERY_SLOT_CLASS = 727_007;

/**
 * `event-notifier:deliver` for one subscription: sends every record whose attempt is due (see delivery.ts).
 * Records are claimed row by row, so several workers may deliver for one subscription at once: no lock; but at most
 * MAX_CONCURRENT_DELIVERIES_PER_PROJECT deliveries run at once for one project.
 */
export const deliverJob = defineJob({
  name: 'event-notifier:deliver',
  lane: 'delivering',
  payload: SubscriptionPayload,
  subject: ({ subscriptionId }) => subscriptionId,
  maxAttempts: 5,
  projectOf: projectOfSubscription,
  perProject: perSubscriptionProject(DELIVERY_SLOT_CLASS, (settings) => settings.maxConcurrentDeliveriesPerProject),
  async run({ deps, payload, log }) {
    const report = await deliverDue(
      {
        db: deps.db,
        masterKey: deps.masterKey,
        settings: { ...deliverySettingsOf(deps), backfillHoldMs: settingsOf(deps).backfillHoldMs },
        signal: deps.signal,
        queue: deliveryQueue,
      },
      payload.subscriptionId,
    );
    // Records out of retries: their failure messages are on the records (get-records).
    if (report.failed > 0) log.warn(report, 'webhooks failed after their last retry');
    else log.debug(report, 'webhooks sent');
  },
  /** Subscriptions with a record whose attempt is overdue by more than `graceMs`. */
  async recover(deps, graceMs) {
    const { rows } = await deps.db.query<{ id: string }>(
      `SELECT s.id FROM event_notifier_subscriptions s
        WHERE s.webhook_url IS NOT NULL
          AND EXISTS (SELECT 1 FROM event_notifier_records r
                       WHERE r.subscription_id = s.id AND r.status = 'scanned' AND r.removed_at IS NULL
                         AND r.next_attempt_at < now() - $1 * interval '1 millisecond'
                         AND (s.webhook_enabled OR r.forced))`,
      [graceMs],
    );
    for (const { id } of rows) await deliveryQueue(deps.db.pool, id);
    return rows.length;
  },
});

/** Queues a subscription's delivery: one queued job per subscription (queueing again moves it). */
export const deliveryQueue = queueFor(deliverJob);
