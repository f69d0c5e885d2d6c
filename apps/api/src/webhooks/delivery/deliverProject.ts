import type { Db } from '#api/db/db.ts';
import type { EnqueueOptions } from '#api/jobs/defineJob.ts';
import { deliverEndpoint, type EndpointDeliveryDeps, type EndpointDeliveryReport } from './deliverEndpoint.ts';

/**
 * Deliveries of one project run at once by its job (each one endpoint's batch). An endpoint that never answers
 * holds one of them for its timeout; the others go on, so a project's healthy endpoints are not held back by a
 * broken one.
 */
export const ENDPOINTS_IN_FLIGHT = 64;

/**
 * While some endpoints are still being delivered (one waiting for its timeout, say), how often the run looks for
 * messages written since: they are sent by this run, beside the slow one, not after it.
 */
const LOOK_AGAIN_MS = 50;

/**
 * Runs on one endpoint at once, each with its own claimed batch: an endpoint with a backlog (a burst of
 * transactions) is sent several batches side by side. Order is not promised to receivers (see the webhooks page).
 */
export const RUNS_PER_ENDPOINT = 4;

export type ProjectDeliveryDeps = Omit<EndpointDeliveryDeps, 'queue'> & {
  /** Queues the project's job again (for the earliest retry still pending). */
  queueProject: (db: Db, projectId: number, options?: EnqueueOptions) => Promise<void>;
};

export interface ProjectDeliveryReport extends Omit<EndpointDeliveryReport, 'disabled'> {
  endpoints: number;
  disabled: string[];
}

/**
 * `webhook:deliver-project`: delivers every due message of the project's enabled endpoints, ENDPOINTS_IN_FLIGHT
 * runs at a time (RUNS_PER_ENDPOINT at most on one endpoint, each with its own batch); as soon as one is done, the
 * next due endpoint takes its place, and messages written meanwhile are taken too. Then queues itself for the earliest retry still pending.
 */
export async function deliverProject(deps: ProjectDeliveryDeps, projectId: number): Promise<ProjectDeliveryReport> {
  const report: ProjectDeliveryReport = { endpoints: 0, delivered: 0, retrying: 0, failed: 0, disabled: [] };
  const runs = new Set<Promise<void>>();
  const running = new Map<string, number>();
  let earliestRetry: Date | undefined;
  const endpointDeps: EndpointDeliveryDeps = {
    ...deps,
    // Each endpoint's next retry, gathered: the project's job is queued once, for the earliest.
    queue: async (_client, _endpointId, options) => {
      if (options?.runAt && (!earliestRetry || options.runAt < earliestRetry)) earliestRetry = options.runAt;
    },
  };
  const start = (endpointId: string) => {
    report.endpoints++;
    running.set(endpointId, (running.get(endpointId) ?? 0) + 1);
    const run: Promise<void> = deliverEndpoint(endpointDeps, endpointId)
      .then((r) => {
        report.delivered += r.delivered;
        report.retrying += r.retrying;
        report.failed += r.failed;
        if (r.disabled && !report.disabled.includes(endpointId)) report.disabled.push(endpointId);
      })
      .finally(() => {
        runs.delete(run);
        const left = (running.get(endpointId) ?? 1) - 1;
        if (left > 0) running.set(endpointId, left);
        else running.delete(endpointId);
      });
    runs.add(run);
  };
  try {
    for (;;) {
      const room = ENDPOINTS_IN_FLIGHT - runs.size;
      if (room > 0 && !deps.signal?.aborted) {
        const full = [...running].filter(([, n]) => n >= RUNS_PER_ENDPOINT).map(([id]) => id);
        for (const endpointId of await dueEndpoints(deps.db, projectId, full, room)) start(endpointId);
      }
      if (runs.size === 0) break;
      let timer: NodeJS.Timeout | undefined;
      const lookAgain = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, LOOK_AGAIN_MS);
      });
      await Promise.race([...runs, lookAgain]);
      clearTimeout(timer);
    }
  } finally {
    // A failure of one endpoint ends the run once the others are done: their outcomes are recorded first.
    await Promise.allSettled([...runs]);
  }
  if (earliestRetry) await deps.queueProject(deps.db, projectId, { runAt: earliestRetry, keepQueued: true });
  return report;
}

/**
 * Up to `limit` enabled endpoints of the project with a delivery due now, other than those being delivered: the
 * due deliveries in time order (a claimed delivery is due again only when its lease ends), so the endpoints waiting
 * longest come first; a look reads the project's due deliveries through one index, whatever its number of endpoints.
 */
async function dueEndpoints(db: Db, projectId: number, busy: string[], limit: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT DISTINCT ON (due.endpoint_id) due.endpoint_id AS id FROM (
       SELECT d.endpoint_id FROM webhook_deliveries d
        WHERE d.project_id = $1 AND d.status = 'pending' AND d.next_attempt_at <= now()
          AND d.endpoint_id <> ALL($2::uuid[])
          AND EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = d.endpoint_id AND e.enabled)
        ORDER BY d.next_attempt_at LIMIT $3 * 16) due
      LIMIT $3`,
    [projectId, busy, limit],
  );
  return rows.map((r) => r.id);
}
