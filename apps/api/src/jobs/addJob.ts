import type { Queryable } from '#api/db/db.ts';

export interface JobOptions {
  /** Jobs with the same key replace each other while queued (graphile-worker job_key). */
  jobKey?: string;
  runAt?: Date;
  maxAttempts?: number;
  /** Jobs of one queue run one at a time, in order. */
  queueName?: string;
  /** `preserve_run_at`: when a job with the key is queued, keep its run time instead of moving it. */
  jobKeyMode?: 'replace' | 'preserve_run_at';
  /** graphile-worker's job flags: marks a job carries (see BEHIND_HOLDER_FLAG); no worker here forbids any. */
  flags?: readonly string[];
}

/**
 * Queues a job with the caller's client, so that it commits or rolls back together with the caller's writes:
 * a job never runs for a row that was not written, and a written row never lacks its job.
 */
export async function addJob(
  client: Queryable,
  task: string,
  payload: object,
  options: JobOptions = {},
): Promise<void> {
  await client.query(
    `SELECT graphile_worker.add_job($1, $2::json, queue_name => $3, run_at => $4, max_attempts => $5, job_key => $6, job_key_mode => $7, flags => $8::text[])`,
    [
      task,
      JSON.stringify(payload),
      options.queueName ?? null,
      options.runAt ?? null,
      options.maxAttempts ?? null,
      options.jobKey ?? null,
      options.jobKeyMode ?? null,
      options.flags ?? null,
    ],
  );
}

/**
 * The job flag that marks a run queued for when a lock's holder lets go (a wake that found the lock held), as against
 * a run the holder queued for later itself (a back-off, a poll interval): runQueuedNow moves only the first kind. A
 * flag, not a priority: it changes no job's order. Queuing the key again without it (runQueuedNow, the holder's
 * own requeue) clears it.
 */
export const BEHIND_HOLDER_FLAG = 'behind-holder';

/**
 * SQL: whether a run is queued under the job key in parameter `keyParam` (`$3`) and not yet taken by a worker. A run
 * that is ending (its lock's `afterRelease` look) still has its own job in the queue, taken, under the same key: that
 * one must not count as a next run.
 */
export const runQueuedSql = (keyParam: string) =>
  `EXISTS (SELECT 1 FROM graphile_worker.jobs WHERE key = ${keyParam} AND locked_at IS NULL)`;

/**
 * Moves the job queued under `jobKey` to now, if one waits for a later time, is not running and was queued behind a
 * lock's holder (BEHIND_HOLDER_FLAG): add_job with the key replaces its time (and wakes the workers), and without
 * such a job nothing is queued. A job that starts between the look and the replace gets a second run, which finds
 * its work done.
 */
export async function runQueuedNow(
  client: Queryable,
  task: string,
  payload: object,
  jobKey: string,
  maxAttempts: number,
): Promise<void> {
  await client.query(
    `SELECT graphile_worker.add_job($1, $2::json, max_attempts => $3, job_key => $4)
       FROM graphile_worker.jobs
      WHERE key = $4 AND locked_at IS NULL AND run_at > now() AND flags ? '${BEHIND_HOLDER_FLAG}' LIMIT 1`,
    [task, JSON.stringify(payload), maxAttempts, jobKey],
  );
}
