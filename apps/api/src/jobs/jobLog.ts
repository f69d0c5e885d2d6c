import type { Job as QueuedJob } from 'graphile-worker';
import { defaultWorkerLogger, type Logger } from '#api/runtime/logger.ts';
import type { AnyJob } from './defineJob.ts';
import type { WorkerDeps } from './workerDeps.ts';

/** Subjects whose project is remembered; past this many the memory starts afresh. */
const REMEMBERED = 10_000;

/**
 * The project of a job's payload (`projectOf`), looked up once per job key: a subscription or a wallet keeps its
 * project. null for a job of no single project (the sweep, a shared wallet) and for a payload that finds none.
 */
export function jobProjects(deps: WorkerDeps) {
  const projects = new Map<string, number | null>();
  return async (job: AnyJob, payload: object | undefined): Promise<number | null> => {
    if (!job.projectOf || payload === undefined) return null;
    const key = job.jobKey(payload as never);
    let project = projects.get(key);
    if (project === undefined) {
      // Naming the project must never stop the job: a lookup that fails (the job will say why) gives null.
      project = await job.projectOf(deps.db, payload as never).catch(() => null);
      if (projects.size >= REMEMBERED) projects.clear();
      projects.set(key, project);
    }
    return project;
  };
}

/** The logger of one run of a job: the worker's, with `job` (its name), `jobId` and `projectId` on every line. */
export function jobLogger(
  deps: WorkerDeps,
): (job: AnyJob, projectId: number | null, queued: QueuedJob | undefined) => Logger {
  const log = deps.log ?? defaultWorkerLogger();
  return (job, projectId, queued) =>
    log.child({
      job: job.name,
      // A bigint: a string, as graphile-worker types it (our int8 parser hands it over as a number).
      jobId: queued?.id !== undefined ? String(queued.id) : null,
      projectId,
    });
}
