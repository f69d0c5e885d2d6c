import { Logger, type Runner, run } from 'graphile-worker';
import type { AnyJob } from '#api/jobs/defineJob.ts';
import { DEFAULT_LANE_CONCURRENCY, JOB_LANES, type JobLane } from '#api/jobs/lanes.ts';
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
 * default) and the sweep over them: one runner per lane (see jobs/lanes.ts), each taking only its own jobs with its
 * own concurrency. Any number of worker processes may run against one database; each job is taken by one of them.
 * Starting queues a sweep that recovers at once whatever a dead worker left.
 */
export function createWorker(options: {
  deps: WorkerDeps;
  jobs?: readonly AnyJob[];
  concurrency?: Partial<Record<JobLane, number>>;
}): Worker {
  const { deps } = options;
  const jobs = options.jobs ?? JOBS;
  const sweepJob = defineSweepJob(jobs);
  const concurrency = { ...DEFAULT_LANE_CONCURRENCY, ...options.concurrency };
  let runners: Runner[] = [];
  let stopSweeping = () => {};
  return {
    async start() {
      for (const lane of JOB_LANES) {
        const laneJobs = [...jobs, sweepJob].filter((job) => job.lane === lane);
        if (laneJobs.length === 0) continue;
        runners.push(
          await run({
            // Our own pool: its error handler keeps a database restart from crashing the process.
            pgPool: deps.db.pool,
            concurrency: concurrency[lane],
            noHandleSignals: true,
            pollInterval: 1_000,
            taskList: createTaskList(deps, laneJobs),
            logger: quietLogger(deps.signal),
          }),
        );
      }
      await sweepJob.enqueue(deps.db.pool, { graceMs: 0 }).catch((error) => {
        if (!deps.signal.aborted) console.error(`[worker] could not queue the sweep: ${(error as Error).message}`);
      });
      stopSweeping = keepSweeping(deps, sweepJob);
    },
    async stop() {
      stopSweeping();
      const stopping = runners;
      runners = [];
      await Promise.all(stopping.map((runner) => runner.stop()));
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
