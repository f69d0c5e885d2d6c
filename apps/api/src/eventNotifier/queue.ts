import type { Queryable } from '#api/db/db.ts';
import { addJob } from '#api/worker/jobs.ts';

/** Job names of the event notifier; the processors are in tasks.ts. */
export const TASK = {
  scan: 'eventNotifier.scan',
  deliver: 'eventNotifier.deliver',
  sweep: 'eventNotifier.sweep',
} as const;

export interface SubscriptionJob {
  subscriptionId: string;
}

// One queued job per subscription and kind: adding again moves the queued one instead of adding a second.
// (A job running right now keeps running; the processors themselves make sure only one scan runs at a time.)
// `keepQueued` leaves an already queued job at its time (and only adds one if none is).
export function queueScan(client: Queryable, subscriptionId: string, runAt?: Date, keepQueued = false): Promise<void> {
  return addJob(client, TASK.scan, { subscriptionId } satisfies SubscriptionJob, {
    jobKey: `event-notifier:scan:${subscriptionId}`,
    ...(runAt ? { runAt } : {}),
    ...(keepQueued ? { jobKeyMode: 'preserve_run_at' as const } : {}),
    maxAttempts: 5,
  });
}

export function queueDelivery(
  client: Queryable,
  subscriptionId: string,
  runAt?: Date,
  keepQueued = false,
): Promise<void> {
  return addJob(client, TASK.deliver, { subscriptionId } satisfies SubscriptionJob, {
    jobKey: `event-notifier:deliver:${subscriptionId}`,
    ...(runAt ? { runAt } : {}),
    ...(keepQueued ? { jobKeyMode: 'preserve_run_at' as const } : {}),
    maxAttempts: 5,
  });
}

/** Queues the sweep; `keepQueued` leaves an already queued sweep at its time (and only adds one if none is). */
export function queueSweep(client: Queryable, runAt?: Date, keepQueued = false): Promise<void> {
  return addJob(
    client,
    TASK.sweep,
    {},
    {
      jobKey: 'event-notifier:sweep',
      ...(runAt ? { runAt } : {}),
      ...(keepQueued ? { jobKeyMode: 'preserve_run_at' as const } : {}),
    },
  );
}
