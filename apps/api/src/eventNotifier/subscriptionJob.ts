import Type, { type Static } from 'typebox';
import type { Db, Queryable } from '#api/db/db.ts';
import type { EnqueueOptions, Job, JobDefinition } from '#api/jobs/defineJob.ts';
import type { WorkerDeps } from '#api/jobs/workerDeps.ts';
import { defaultEventNotifierSettings, type EventNotifierSettings } from './settings.ts';

/** The payload of the event notifier's jobs: each works on one subscription. */
export const SubscriptionPayload = Type.Object({ subscriptionId: Type.String({ minLength: 1, maxLength: 64 }) });

/** Queues a subscription's scan (or delivery), with `client` inside the caller's database transaction. */
export type QueueFor = (client: Queryable, subscriptionId: string, options?: EnqueueOptions) => Promise<void>;

/** The event notifier's settings of a worker: the configuration's, or the development defaults. */
export const settingsOf = (deps: WorkerDeps): EventNotifierSettings =>
  deps.eventNotifier ?? defaultEventNotifierSettings();

export const queueFor =
  (job: Job<typeof SubscriptionPayload>): QueueFor =>
  (client, subscriptionId, options) =>
    job.enqueue(client, { subscriptionId }, options);

/** The project of a subscription's jobs; null when the subscription is gone. */
export async function projectOfSubscription(db: Db, { subscriptionId }: Static<typeof SubscriptionPayload>) {
  const { rows } = await db.query<{ projectId: number }>(
    'SELECT project_id AS "projectId" FROM event_notifier_subscriptions WHERE id = $1',
    [subscriptionId],
  );
  return rows[0]?.projectId ?? null;
}

/**
 * A cap on the jobs of one kind (scans, deliveries) that run at once for the subscriptions of one project, so that
 * one project's backfills or hanging receivers leave the other projects their share of the lane.
 */
export const perSubscriptionProject = (
  classId: number,
  limitOf: (settings: EventNotifierSettings) => number,
): NonNullable<JobDefinition<typeof SubscriptionPayload>['perProject']> => ({
  classId,
  limit: (deps) => limitOf(settingsOf(deps)),
  retryInMs: () => 1_000,
});
