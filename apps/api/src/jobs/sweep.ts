import Type from 'typebox';
import { type AnyJob, defineJob } from './defineJob.ts';
import type { WorkerDeps } from './workerDeps.ts';

export const DEFAULT_SWEEP_INTERVAL_MS = 5_000;

const sweepIntervalOf = (deps: WorkerDeps) => deps.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS;

/**
 * Grace before work counts as lost: a healthy queue runs due jobs within a few poll intervals, and a live job
 * touches its rows far more often than this.
 */
export const sweepGraceMs = (deps: WorkerDeps) => Math.max(15_000, sweepIntervalOf(deps) * 3);

/**
 * The periodic sweep: one loop over every job's `recover`, which queues again the work a killed worker (or one
 * that lost its database connection) left locked in the queue, where graphile-worker would free it only after
 * hours. It queues itself again when it ends. `graceMs: 0` (a worker starting) recovers at once whatever no live
 * process holds.
 */
export function defineSweepJob(jobs: readonly AnyJob[]) {
  const sweepJob = defineJob({
    name: 'jobs:sweep',
    lane: 'upkeep',
    payload: Type.Object({ graceMs: Type.Optional(Type.Integer({ minimum: 0 })) }),
    maxAttempts: 25,
    async run({ deps, payload }) {
      try {
        const graceMs = payload.graceMs ?? sweepGraceMs(deps);
        for (const job of jobs) await job.recover?.(deps, graceMs);
      } finally {
        if (!deps.signal.aborted) {
          await sweepJob.enqueue(deps.db.pool, {}, { runAt: new Date(Date.now() + sweepIntervalOf(deps)) });
        }
      }
    },
  });
  return sweepJob;
}

/**
 * Makes sure a sweep is queued now and then: the sweep queues itself when it ends, but should that fail (the
 * database gone at that moment) its job stays locked. Returns the stop function.
 */
export function keepSweeping(deps: WorkerDeps, sweepJob: AnyJob): () => void {
  const timer = setInterval(() => {
    if (!deps.signal.aborted) sweepJob.enqueue(deps.db.pool, {}, { keepQueued: true }).catch(() => {});
  }, sweepIntervalOf(deps) * 6);
  timer.unref();
  return () => clearInterval(timer);
}
