import { deliverySettingsOf } from '#api/delivery/settings.ts';
import { deliveryQueue } from '#api/eventNotifier/delivery/jobs.ts';
import {
  perSubscriptionProject,
  projectOfSubscription,
  queueFor,
  SubscriptionPayload,
  settingsOf,
} from '#api/eventNotifier/subscriptionJob.ts';
import { defineJob } from '#api/jobs/defineJob.ts';
import type { ScanQueue } from './rangeStore.ts';
import { scanSubscription } from './scanner.ts';

// Advisory lock class of scans: (class, hash of the subscription id).
export const SCAN_LOCK_CLASS = 727_005;
// Slots of a project's concurrent scans: (class, hash of "<projectId>:<slot>").
const SCAN_SLOT_CLASS = 727_006;

/**
 * `event-notifier:scan` for one subscription: reads its new logs, stores them as records and queues their delivery,
 * then queues the next scan one interval later (see scanner.ts). One scan per subscription at a time, and at most
 * MAX_CONCURRENT_SCANS_PER_PROJECT per project.
 */
export const scanJob = defineJob({
  name: 'event-notifier:scan',
  lane: 'scanning',
  payload: SubscriptionPayload,
  subject: ({ subscriptionId }) => subscriptionId,
  maxAttempts: 5,
  // Another scan of it holds the subscription: usually one just queueing this job as it ends, still holding the
  // lock for a moment. Look again in a second, unless a scan is queued already (the holder's next one).
  lock: { key: ({ subscriptionId }) => [SCAN_LOCK_CLASS, subscriptionId], retryInMs: () => 1_000, keepQueued: true },
  projectOf: projectOfSubscription,
  perProject: perSubscriptionProject(SCAN_SLOT_CLASS, (settings) => settings.maxConcurrentScansPerProject),
  async run({ deps, payload, log }) {
    const outcome = await scanSubscription(
      {
        db: deps.db,
        chains: deps.chains,
        settings: { ...settingsOf(deps), webhookTimeoutMs: deliverySettingsOf(deps).webhookTimeoutMs },
        signal: deps.signal,
        queue: scanQueue,
      },
      payload.subscriptionId,
    );
    // The failure is also the subscription's lastScanFailureMessage (RPC URLs replaced): the next scan tries again.
    if (outcome.kind === 'failed') log.warn({ reason: outcome.message }, 'scan failed');
    else log.debug(outcome, 'scan');
  },
  /**
   * Enabled subscriptions left `scanning` (a scan whose worker died; a scan still running elsewhere holds the lock,
   * and this job then waits for it) or overdue by more than `graceMs`.
   */
  async recover(deps, graceMs) {
    const { rows } = await deps.db.query<{ id: string }>(
      `SELECT id FROM event_notifier_subscriptions
        WHERE scan_enabled
          AND (scan_status = 'scanning' OR next_scan_at IS NULL OR next_scan_at < now() - $1 * interval '1 millisecond')`,
      [graceMs],
    );
    for (const { id } of rows) await scanQueue.scan(deps.db.pool, id);
    return rows.length;
  },
});

/** What a scan queues: the subscription's next scan, and the delivery of what it stored. */
export const scanQueue: ScanQueue = { scan: queueFor(scanJob), delivery: deliveryQueue };
