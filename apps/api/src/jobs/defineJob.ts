import type { Static, TSchema } from 'typebox';
import type { Db, Queryable } from '#api/db/db.ts';
import type { Logger } from '#api/runtime/logger.ts';
import { addJob, BEHIND_HOLDER_FLAG, runQueuedNow } from './addJob.ts';
import type { LockKey } from './advisoryLock.ts';
import type { JobLane } from './lanes.ts';
import type { WorkerDeps } from './workerDeps.ts';

export interface EnqueueOptions {
  /** When to run; now when absent. */
  runAt?: Date;
  /** Leave a job already queued under the same key at its time (and only add one if none is). */
  keepQueued?: boolean;
  /** A run for when the lock's holder lets go (see `lock.wakeOnRelease`), not one the holder schedules itself. */
  behindHolder?: boolean;
}

/** What a job's `run` gets: the worker's dependencies, its validated payload, and a way to queue itself again. */
export interface JobContext<P> {
  deps: WorkerDeps;
  payload: P;
  /** Logs with the job's name, id and project on every line (`job`, `jobId`, `projectId`). */
  log: Logger;
  /** Queues this job again with the same payload, with `client` inside the caller's database transaction. */
  requeue(client: Queryable, options?: EnqueueOptions): Promise<void>;
}

/**
 * One background job, fully self-described: the worker-side twin of `defineRoute`. The job runner validates the
 * payload, takes the lock, runs it and retries it up to `maxAttempts`; the periodic sweep calls `recover`.
 */
export interface JobDefinition<S extends TSchema> {
  /** `<feature>:<action>`, e.g. `transaction:send`. Also the prefix of every job key. */
  name: string;
  /** The worker lane that runs it (see lanes.ts): each lane has its own concurrency. */
  lane: JobLane;
  payload: S;
  /**
   * The subject of one job, such as a wallet or a subscription. Queued jobs with the same key replace each other
   * (graphile-worker's job_key `<name>:<subject>`), so a burst of requests becomes one run. Absent: one job at a time.
   */
  subject?(payload: Static<S>): string;
  /**
   * The project the job works for (looked up once per job key: a subject keeps its project): named on its log
   * lines, and whose slots `perProject` takes. null when it has none or several (a shared wallet), or when the
   * subject is gone.
   */
  projectOf?(db: Db, payload: Static<S>): Promise<number | null>;
  /** Attempts before graphile-worker gives up on a job that keeps throwing. */
  maxAttempts: number;
  /**
   * A PostgreSQL advisory lock held while `run` runs: one process at a time does this work for a subject, across
   * every worker. When another holds it, the job is queued again `retryInMs` later instead.
   */
  lock?: {
    key(payload: Static<S>): LockKey;
    retryInMs(deps: WorkerDeps): number;
    /** Leave a job already queued for the subject at its time (the holder usually queues the next run). */
    keepQueued?: boolean;
    /**
     * The holder, when it lets go, starts at once a run that was queued for later because it found the lock held
     * (see runQueuedNow), but not a run the holder queued for later itself: work that arrived
     * while the holder was finishing waits for the holder only, not for the retry and the worker's next look at the
     * queue. The retry stays, for a holder that dies.
     */
    wakeOnRelease?: boolean;
    /**
     * Called once a holder that ran to its end has let go (errors are logged, not thrown). For work whose wakers skip
     * the queue while a holder runs (it reads their work on its next pass): this looks for what arrived after the
     * holder's last pass, and queues a run for it. A waker's write commits before it finds the lock held, so before
     * this look.
     */
    afterRelease?(deps: WorkerDeps, payload: Static<S>): Promise<void>;
  };
  /**
   * A cap per project: at most `limit` jobs of this kind run at once for one project, across every worker. Each
   * takes one of the project's slots (advisory locks `[classId, "<projectId>:<slot>"]`, on the session of `lock`);
   * a job finding them all taken is queued again `retryInMs` later. The project is `projectOf`'s; a job of no
   * project (its subject gone) runs uncapped, and finds nothing to do.
   */
  perProject?: {
    classId: number;
    limit(deps: WorkerDeps): number;
    retryInMs(deps: WorkerDeps): number;
  };
  run(ctx: JobContext<Static<S>>): Promise<void>;
  /**
   * Queues again the work that a killed worker took with it: subjects with work left that nobody has touched for
   * `graceMs` and whose lock nobody holds. Returns how many jobs it queued.
   */
  recover?(deps: WorkerDeps, graceMs: number): Promise<number>;
}

export interface Job<S extends TSchema = TSchema> extends JobDefinition<S> {
  /** graphile-worker's job_key for this payload. */
  jobKey(payload: Static<S>): string;
  /**
   * The SQL function that queues this job from SQL (a trigger, a statement), taking the payload's fields in the
   * schema's order: generated from this definition (see jobsSql.ts).
   */
  queueFunction: string;
  /** Queues the job with the caller's client, so it commits or rolls back with the caller's writes. */
  enqueue(client: Queryable, payload: Static<S>, options?: EnqueueOptions): Promise<void>;
  /** Moves a run of this payload queued behind a lock's holder (and not running) to now; queues nothing otherwise. */
  runQueuedNow(client: Queryable, payload: Static<S>): Promise<void>;
}

/** Any job, whatever its payload (method signatures keep a list of different jobs assignable). */
export type AnyJob = Job<TSchema>;

/** The name of a job's SQL queue function (see jobsSql.ts): `transaction:send` → `queue_job_transaction_send`. */
export function queueFunctionOf(name: string): string {
  return `queue_job_${name.replace(/[^a-z0-9]+/g, '_')}`;
}

export function defineJob<S extends TSchema>(definition: JobDefinition<S>): Job<S> {
  const jobKey = (payload: Static<S>) =>
    definition.subject ? `${definition.name}:${definition.subject(payload)}` : definition.name;
  return {
    ...definition,
    jobKey,
    queueFunction: queueFunctionOf(definition.name),
    enqueue(client, payload, options = {}) {
      return addJob(client, definition.name, payload as object, {
        jobKey: jobKey(payload),
        maxAttempts: definition.maxAttempts,
        ...(options.runAt ? { runAt: options.runAt } : {}),
        ...(options.keepQueued ? { jobKeyMode: 'preserve_run_at' as const } : {}),
        ...(options.behindHolder ? { flags: [BEHIND_HOLDER_FLAG] } : {}),
      });
    },
    runQueuedNow(client, payload) {
      return runQueuedNow(client, definition.name, payload as object, jobKey(payload), definition.maxAttempts);
    },
  };
}
