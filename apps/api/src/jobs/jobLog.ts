import type { Job as QueuedJob } from 'graphile-worker';
import { defaultWorkerLogger, type Logger } from '#api/runtime/logger.ts';
import type { AnyJob } from './defineJob.ts';
import type { WorkerDeps } from './workerDeps.ts';

/** Subjects whose project is remembered; past this many the memory starts afresh. */
const REMEMBERED = 10_000;

/**
 * The logger of one run of a job: the worker's, with `job` (its name), `jobId` (graphile-worker's id) and
 * `projectId` bound to every line. The project comes from the job's `projectOf`, else `perProject.projectOf`, and
 * is remembered per job key (a subscription or a wallet keeps its project); null for a job of no single project
 * (the sweep, a shared wallet).
 */
export function jobLogger(deps: WorkerDeps) {
  const log = deps.log ?? defaultWorkerLogger();
  const projects = new Map<string, number | null>();
  const lookUp = async (job: AnyJob, payload: never): Promise<number | null> => {
    if (job.projectOf) return job.projectOf(deps.db, payload);
    const project = await job.perProject?.projectOf(deps, payload);
    return project === undefined ? null : Number(project);
  };
  const projectOf = async (job: AnyJob, payload: object | undefined): Promise<number | null> => {
    if ((!job.projectOf && !job.perProject) || payload === undefined) return null;
    const key = job.jobKey(payload as never);
    let project = projects.get(key);
    if (project === undefined) {
      // Naming the project must never stop the job: a payload that finds none (the job will say why) logs null.
      project = await lookUp(job, payload as never).catch(() => null);
      if (projects.size >= REMEMBERED) projects.clear();
      projects.set(key, project);
    }
    return project;
  };
  return async (job: AnyJob, payload: object | undefined, queued: QueuedJob | undefined): Promise<Logger> =>
    log.child({
      job: job.name,
      // A bigint: a string, as graphile-worker types it (our int8 parser hands it over as a number).
      jobId: queued?.id !== undefined ? String(queued.id) : null,
      projectId: await projectOf(job, payload),
    });
}
