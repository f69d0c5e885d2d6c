import type { Task, TaskList } from 'graphile-worker';
import { Compile } from 'typebox/compile';
import { redactUrls } from '#api/runtime/logger.ts';
import { tryAdvisoryLock } from './advisoryLock.ts';
import type { AnyJob, JobContext } from './defineJob.ts';
import type { WorkerDeps } from './workerDeps.ts';

/**
 * graphile-worker's task list for `jobs`: each task checks its payload against the job's schema, takes the job's
 * lock (or queues itself again when another process holds it), then runs the job.
 */
export function createTaskList(deps: WorkerDeps, jobs: readonly AnyJob[]): TaskList {
  return Object.fromEntries(jobs.map((job) => [job.name, taskOf(deps, job)]));
}

function taskOf(deps: WorkerDeps, job: AnyJob): Task {
  const payloadCheck = Compile(job.payload);
  return async (raw) => {
    if (!payloadCheck.Check(raw)) {
      // Retrying cannot make a payload valid: say so once and drop the job.
      const [first] = payloadCheck.Errors(raw);
      console.error(
        `[worker] ${job.name}: invalid payload ${redactUrls(JSON.stringify(raw)).slice(0, 200)} (${first?.instancePath || '/'} ${first?.message ?? ''})`,
      );
      return;
    }
    const payload = raw as never;
    const ctx: JobContext<unknown> = {
      deps,
      payload,
      requeue: (client, options) => job.enqueue(client, payload, options),
    };
    if (!job.lock) return job.run(ctx);
    const lock = await tryAdvisoryLock(deps.db, job.lock.key(payload));
    if (!lock) {
      await job.enqueue(deps.db.pool, payload, {
        runAt: new Date(Date.now() + job.lock.retryInMs(deps)),
        ...(job.lock.keepQueued ? { keepQueued: true } : {}),
      });
      return;
    }
    try {
      await job.run(ctx);
    } finally {
      await lock.release();
    }
  };
}
