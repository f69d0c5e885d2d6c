import type { Task, TaskList } from 'graphile-worker';
import { Compile } from 'typebox/compile';
import { redactUrls } from '#api/runtime/logger.ts';
import { type LockKey, tryAdvisoryLocks } from './advisoryLock.ts';
import type { AnyJob, JobContext } from './defineJob.ts';
import type { WorkerDeps } from './workerDeps.ts';

/**
 * graphile-worker's task list for `jobs`: each task checks its payload against the job's schema, takes the job's
 * lock and a slot of its project (or queues itself again when another process holds the lock or the project's
 * slots), then runs the job.
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
    const project = job.perProject ? await job.perProject.projectOf(deps, payload) : undefined;
    const slots = job.perProject && project !== undefined ? projectSlots(job.perProject, project, deps) : undefined;
    if (!job.lock && !slots) return job.run(ctx);
    const taken = await tryAdvisoryLocks(deps.db, {
      all: job.lock ? [job.lock.key(payload)] : [],
      ...(slots ? { oneOf: slots } : {}),
    });
    if ('refused' in taken) {
      // The subject is busy elsewhere (look again soon, or leave the holder's next run queued), or its project has
      // every slot taken (look again when one may be free).
      const wait = taken.refused === 'all' ? job.lock : job.perProject;
      await job.enqueue(deps.db.pool, payload, {
        runAt: new Date(Date.now() + (wait?.retryInMs(deps) ?? 1_000)),
        ...(taken.refused === 'all' && job.lock?.keepQueued ? { keepQueued: true } : {}),
      });
      return;
    }
    try {
      await job.run(ctx);
    } finally {
      await taken.lock.release();
    }
  };
}

/** The advisory locks of a project's slots for one kind of job. */
function projectSlots(cap: NonNullable<AnyJob['perProject']>, project: string, deps: WorkerDeps): LockKey[] {
  return Array.from({ length: cap.limit(deps) }, (_, slot): LockKey => [cap.classId, `${project}:${slot}`]);
}
