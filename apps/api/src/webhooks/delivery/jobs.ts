import Type, { type Static } from 'typebox';
import type { Db } from '#api/db/db.ts';
import { settingsOf } from '#api/eventNotifier/subscriptionJob.ts';
import { defineJob } from '#api/jobs/defineJob.ts';
import { deliverEndpoint, type EndpointQueue } from './deliverEndpoint.ts';

// Slots of a project's concurrent endpoint deliveries: (class, hash of "<projectId>:<slot>").
const ENDPOINT_DELIVERY_SLOT_CLASS = 727_011;

const EndpointPayload = Type.Object({ endpointId: Type.String({ minLength: 1, maxLength: 64 }) });

async function projectOfEndpoint(db: Db, { endpointId }: Static<typeof EndpointPayload>) {
  const { rows } = await db.query<{ projectId: number }>(
    'SELECT project_id AS "projectId" FROM webhook_endpoints WHERE id = $1',
    [endpointId],
  );
  return rows[0]?.projectId ?? null;
}

/**
 * `webhook:deliver` for one endpoint: sends its due deliveries (see deliverEndpoint.ts). Queued by the triggers
 * that write messages (migration 021), in the database transaction of the change. Deliveries are claimed row by
 * row, so no lock; at most MAX_CONCURRENT_DELIVERIES_PER_PROJECT run at once for one project.
 */
export const endpointDeliverJob = defineJob({
  name: 'webhook:deliver',
  lane: 'delivering',
  payload: EndpointPayload,
  subject: ({ endpointId }) => endpointId,
  maxAttempts: 5,
  projectOf: projectOfEndpoint,
  perProject: {
    classId: ENDPOINT_DELIVERY_SLOT_CLASS,
    limit: (deps) => settingsOf(deps).maxConcurrentDeliveriesPerProject,
    retryInMs: () => 1_000,
  },
  async run({ deps, payload, log }) {
    const report = await deliverEndpoint(
      { db: deps.db, masterKey: deps.masterKey, settings: settingsOf(deps), signal: deps.signal, queue: endpointQueue },
      payload.endpointId,
    );
    if (report.disabled) log.warn(report, 'webhook endpoint disabled after failing too long');
    else if (report.failed > 0) log.warn(report, 'webhooks failed after their last retry');
    else log.debug(report, 'webhooks sent');
  },
  /** Endpoints with a delivery whose attempt is overdue by more than `graceMs`. */
  async recover(deps, graceMs) {
    const { rows } = await deps.db.query<{ id: string }>(
      `SELECT e.id FROM webhook_endpoints e
        WHERE e.enabled AND EXISTS (SELECT 1 FROM webhook_deliveries d
                                     WHERE d.endpoint_id = e.id AND d.status = 'pending'
                                       AND d.next_attempt_at < now() - $1 * interval '1 millisecond')`,
      [graceMs],
    );
    for (const { id } of rows) await endpointQueue(deps.db.pool, id);
    return rows.length;
  },
});

/** Queues an endpoint's delivery: one queued job per endpoint (queueing again moves it). */
export const endpointQueue: EndpointQueue = (client, endpointId, options) =>
  endpointDeliverJob.enqueue(client, { endpointId }, options);
