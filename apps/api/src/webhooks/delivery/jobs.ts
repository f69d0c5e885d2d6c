import Type from 'typebox';
import type { Db, Queryable } from '#api/db/db.ts';
import { deliverySettingsOf } from '#api/delivery/settings.ts';
import { defineJob, type EnqueueOptions, type JobContext } from '#api/jobs/defineJob.ts';
import type { WorkerDeps } from '#api/jobs/workerDeps.ts';
import type { EndpointQueue } from './deliverEndpoint.ts';
import { deliverProject } from './deliverProject.ts';

// One delivery of a project's endpoints at a time, across every worker: (class, project id).
const PROJECT_DELIVERY_LOCK_CLASS = 727_012;

const ProjectPayload = Type.Object({ projectId: Type.Integer({ minimum: 1 }) });
const EndpointPayload = Type.Object({ endpointId: Type.String({ minLength: 1, maxLength: 64 }) });

/** Delivers the project's due messages, and logs what went wrong. */
async function runProject(deps: WorkerDeps, projectId: number, log: JobContext<unknown>['log']) {
  const report = await deliverProject(
    { db: deps.db, masterKey: deps.masterKey, settings: deliverySettingsOf(deps), signal: deps.signal, queueProject },
    projectId,
  );
  if (report.disabled.length > 0) log.warn(report, 'webhook endpoints disabled after failing too long');
  else if (report.failed > 0) log.warn(report, 'webhooks failed after their last retry');
  else log.debug(report, 'webhooks sent');
}

/**
 * `webhook:deliver-project` for one project: sends the due deliveries of its endpoints, side by side (see
 * deliverProject.ts), one run per project at a time, so a project takes one runner of the delivering lane whatever
 * its number of endpoints. Queued by the triggers that write messages (migration 030), in the database transaction
 * of the change, once per project: a message to many endpoints is one job.
 */
export const projectDeliverJob = defineJob({
  name: 'webhook:deliver-project',
  lane: 'delivering',
  payload: ProjectPayload,
  subject: ({ projectId }) => String(projectId),
  maxAttempts: 5,
  projectOf: async (_db, { projectId }) => projectId,
  // A message written while the project is being delivered is usually taken by that run; if it ends first, this
  // job runs a moment later.
  lock: { key: ({ projectId }) => [PROJECT_DELIVERY_LOCK_CLASS, String(projectId)], retryInMs: () => 100 },
  run: ({ deps, payload, log }) => runProject(deps, payload.projectId, log),
  /** Projects with a delivery whose attempt is overdue by more than `graceMs`. */
  async recover(deps, graceMs) {
    const { rows } = await deps.db.query<{ projectId: number }>(
      `SELECT DISTINCT e.project_id AS "projectId" FROM webhook_endpoints e
        WHERE e.enabled AND EXISTS (SELECT 1 FROM webhook_deliveries d
                                     WHERE d.endpoint_id = e.id AND d.status = 'pending'
                                       AND d.next_attempt_at < now() - $1 * interval '1 millisecond')`,
      [graceMs],
    );
    for (const { projectId } of rows) await queueProject(deps.db, projectId);
    return rows.length;
  },
});

/** Queues a project's delivery job (queueing again moves it, unless `keepQueued`). */
export function queueProject(db: Pick<Db, 'pool'>, projectId: number, options?: EnqueueOptions): Promise<void> {
  return projectDeliverJob.enqueue(db.pool, { projectId }, options);
}

/**
 * `webhook:deliver` for one endpoint, as queued before messages were delivered by project: delivers the endpoint's
 * project (its endpoint among them).
 */
export const endpointDeliverJob = defineJob({
  name: 'webhook:deliver',
  lane: 'delivering',
  payload: EndpointPayload,
  subject: ({ endpointId }) => endpointId,
  maxAttempts: 5,
  async run({ deps, payload, log }) {
    const projectId = await projectOfEndpoint(deps.db.pool, payload.endpointId);
    if (projectId !== null) await runProject(deps, projectId, log);
  },
  // The project's job recovers every endpoint's overdue deliveries.
  recover: async () => 0,
});

async function projectOfEndpoint(db: Queryable, endpointId: string): Promise<number | null> {
  const { rows } = await db.query<{ projectId: number }>(
    'SELECT project_id AS "projectId" FROM webhook_endpoints WHERE id = $1',
    [endpointId],
  );
  return rows[0]?.projectId ?? null;
}

/** Queues the delivery of an endpoint's messages: its project's job, in the caller's database transaction. */
export const endpointQueue: EndpointQueue = async (client, endpointId, options) => {
  const projectId = await projectOfEndpoint(client, endpointId);
  if (projectId !== null) await projectDeliverJob.enqueue(client, { projectId }, options);
};
