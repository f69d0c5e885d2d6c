import { type Runner, run } from 'graphile-worker';
import type { AnyJob } from '#api/jobs/defineJob.ts';
import { DEFAULT_LANE_CONCURRENCY, JOB_LANES, type JobLane } from '#api/jobs/lanes.ts';
import { defineSweepJob, keepSweeping } from '#api/jobs/sweep.ts';
import { createTaskList } from '#api/jobs/taskList.ts';
import type { WorkerDeps } from '#api/jobs/workerDeps.ts';
import { defaultWorkerLogger } from '#api/runtime/logger.ts';
import { graphileLogger } from './graphileLogger.ts';
import { JOBS } from './jobList.ts';

/**
 * How long jobs a lane's runner took stay with it while all its slots are busy: then they are returned to the queue,
 * where an idle worker process takes them (one that frees a slot first takes them at once).
 */
export const LOCAL_QUEUE_TTL_MS = 1_000;

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
  const deps = { ...options.deps, log: options.deps.log ?? defaultWorkerLogger() };
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
            // The lane's runner asks for jobs, not each of its slots: an idle worker process polls once a second per
            // lane instead of once per slot (5 polls a second instead of 29 with the default concurrency). Jobs it
            // takes while every slot is busy go back after LOCAL_QUEUE_TTL_MS, for another worker process to run.
            preset: { worker: { localQueue: { size: concurrency[lane], ttl: LOCAL_QUEUE_TTL_MS } } },
            taskList: createTaskList(deps, laneJobs),
            logger: graphileLogger(deps.log, deps.signal),
          }),
        );
      }
      await sweepJob.enqueue(deps.db.pool, { graceMs: 0 }).catch((error) => {
        if (!deps.signal.aborted) deps.log.error({ err: error }, 'could not queue the sweep');
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
