import type { JobHelpers, Task, TaskList } from 'graphile-worker';
import { Compile } from 'typebox/compile';
import type { Logger } from '#api/runtime/logger.ts';
import { advisoryLockHeld, type LockKey, tryAdvisoryLocks } from './advisoryLock.ts';
import type { AnyJob, JobContext } from './defineJob.ts';
import { jobLogger, jobProjects } from './jobLog.ts';
import type { WorkerDeps } from './workerDeps.ts';

/**
 * graphile-worker's task list for `jobs`: each task checks its payload against the job's schema, takes the job's
 * lock and a slot of its project (or queues itself again when another process holds the lock or the project's
 * slots), then runs the job. Every line it logs, and every line the job logs through `ctx.log`, names the job, its
 * id and its project.
 */
export function createTaskList(deps: WorkerDeps, jobs: readonly AnyJob[]): TaskList {
  const logOf = jobLogger(deps);
  const projectOf = jobProjects(deps);
  return Object.fromEntries(jobs.map((job) => [job.name, taskOf(deps, job, logOf, projectOf)]));
}

function taskOf(
  deps: WorkerDeps,
  job: AnyJob,
  logOf: ReturnType<typeof jobLogger>,
  projectOf: ReturnType<typeof jobProjects>,
): Task {
  const payloadCheck = Compile(job.payload);
  return async (raw, helpers: JobHelpers | undefined) => {
    const valid = payloadCheck.Check(raw);
    const project = await projectOf(job, valid ? (raw as object) : undefined);
    const log = logOf(job, project, helpers?.job);
    if (!valid) {
      // Retrying cannot make a payload valid: say so once and drop the job.
      const [first] = payloadCheck.Errors(raw);
      log.error(
        { payload: JSON.stringify(raw).slice(0, 200) },
        `${job.name}: invalid payload (${first?.instancePath || '/'} ${first?.message ?? ''})`,
      );
      return;
    }
    const started = performance.now();
    const attempt = { attempt: helpers?.job?.attempts, maxAttempts: helpers?.job?.max_attempts };
    try {
      await runLocked(deps, job, raw as never, project, log);
      log.debug({ durationMs: Math.round(performance.now() - started) }, `${job.name} done`);
    } catch (err) {
      log.error({ err, ...attempt, durationMs: Math.round(performance.now() - started) }, `${job.name} failed`);
      throw err;
    }
  };
}

async function runLocked(
  deps: WorkerDeps,
  job: AnyJob,
  payload: never,
  project: number | null,
  log: Logger,
): Promise<void> {
  const ctx: JobContext<unknown> = {
    deps,
    payload,
    log,
    requeue: (client, options) => job.enqueue(client, payload, options),
  };
  const slots = job.perProject && project !== null ? projectSlots(job.perProject, project, deps) : undefined;
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
      ...(taken.refused === 'all' && job.lock?.wakeOnRelease ? { behindHolder: true } : {}),
    });
    // A holder that let go before that run was queued did not see it: then it runs now.
    if (taken.refused === 'all' && job.lock?.wakeOnRelease && !(await advisoryLockHeld(deps.db, job.lock.key(payload))))
      await job.runQueuedNow(deps.db.pool, payload);
    return;
  }
  let ran = false;
  try {
    await job.run(ctx);
    ran = true;
  } finally {
    await taken.lock.release();
    // Not after a failure: graphile-worker's retry, with its back-off, runs the job again.
    if (ran && job.lock?.afterRelease) {
      await job.lock
        .afterRelease(deps, payload)
        .catch((err: unknown) => log.warn({ err }, `${job.name}: the look after letting go failed`));
    }
    if (job.lock?.wakeOnRelease) {
      // Best effort: the queued run's retry still comes.
      await job
        .runQueuedNow(deps.db.pool, payload)
        .catch((err: unknown) => log.warn({ err }, 'wake on release failed'));
    }
  }
}

/** The advisory locks of a project's slots for one kind of job. */
function projectSlots(cap: NonNullable<AnyJob['perProject']>, project: number, deps: WorkerDeps): LockKey[] {
  return Array.from({ length: cap.limit(deps) }, (_, slot): LockKey => [cap.classId, `${project}:${slot}`]);
}
