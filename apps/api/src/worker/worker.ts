import { Logger, type Runner, run } from 'graphile-worker';
import type { AnyJob } from '#api/jobs/defineJob.ts';
import { defineSweepJob, keepSweeping } from '#api/jobs/sweep.ts';
import { createTaskList } from '#api/jobs/taskList.ts';
import type { WorkerDeps } from '#api/jobs/workerDeps.ts';
import { redactUrls } from '#api/runtime/logger.ts';
import { JOBS } from './jobList.ts';

export interface Worker {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The background job runner (graphile-worker on the platform's Postgres), running `jobs` (every registered job by
 * default) and the sweep over them. Any number of worker processes may run against one database; each job is
 * taken by one of them. Starting queues a sweep that recovers at once whatever a dead worker left.
 */
export function createWorker(options: { deps: WorkerDeps; jobs?: readonly AnyJob[]; concurrency?: number }): Worker {
  const { deps } = options;
  const jobs = options.jobs ?? JOBS;
  const sweepJob = defineSweepJob(jobs);
  let runner: Runner | undefined;
  let stopSweeping = () => {};
  return {
    async start() {
      runner = await run({
        // Our own pool: its error handler keeps a database restart from crashing the process.
        pgPool: deps.db.pool,
        concurrency: options.concurrency ?? 10,
        noHandleSignals: true,
        pollInterval: 1_000,
        taskList: createTaskList(deps, [...jobs, sweepJob]),
        logger: quietLogger(deps.signal),
      });
      await sweepJob.enqueue(deps.db.pool, { graceMs: 0 }).catch((error) => {
        if (!deps.signal.aborted) console.error(`[worker] could not queue the sweep: ${(error as Error).message}`);
      });
      stopSweeping = keepSweeping(deps, sweepJob);
    },
    async stop() {
      stopSweeping();
      await runner?.stop();
      runner = undefined;
    },
  };
}

// graphile-worker logs every job at info level; the platform logs what matters itself. A failed job's message
// quotes its error, and RPC client errors quote the endpoint's URL (with any provider key): see redactUrls.
function quietLogger(signal: AbortSignal): Logger {
  return new Logger(() => (level: string, message: string) => {
    if ((level === 'error' || level === 'warning') && !signal.aborted) console.error(`[worker] ${redactUrls(message)}`);
  });
}
