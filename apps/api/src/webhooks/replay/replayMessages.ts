import type { Db } from '#api/db/db.ts';
import { ApiError } from '#api/errors/ApiError.ts';
import { deliverJob } from '#api/eventNotifier/delivery/jobs.ts';
import { endpointQueue } from '#api/webhooks/delivery/jobs.ts';

/** Messages one replay queues at most (the call's cost is bounded; replay the rest with a later `since`). */
export const REPLAY_MAX_MESSAGES = 10_000;
/** Replayed messages are spaced so that at most this many a second are due: a receiver back from an outage is not flooded. */
export const REPLAY_PER_SECOND = 50;

export interface ReplayRequest {
  endpointId?: string | undefined;
  subscriptionId?: string | undefined;
  since: string;
  until?: string | undefined;
  /** Only those that failed (default), or every delivered or failed one. */
  onlyFailed?: boolean | undefined;
}

/**
 * Queues again the messages of an endpoint or a subscription's own webhook created in the window, with their
 * original `webhook-id`, due at most REPLAY_PER_SECOND a second. A message already waiting (pending) is not queued
 * again, so asking twice does not send twice. Answers how many were queued.
 */
export async function replayMessages(db: Db, projectId: number, request: ReplayRequest): Promise<number> {
  const statuses = request.onlyFailed === false ? ['failed', 'delivered'] : ['failed'];
  const until = request.until ?? null;
  const spacingMs = 1000 / REPLAY_PER_SECOND;
  return db.transaction(async (client) => {
    if (request.endpointId) {
      const owned = await client.query('SELECT 1 FROM webhook_endpoints WHERE id = $1 AND project_id = $2 FOR UPDATE', [
        request.endpointId,
        projectId,
      ]);
      if (owned.rows.length === 0)
        throw new ApiError('NOT_FOUND', { resource: 'Webhook endpoint', id: request.endpointId });
      const { rowCount } = await client.query(
        `WITH chosen AS (
           SELECT d.message_id, row_number() OVER (ORDER BY m.created_at, m.id) - 1 AS n
             FROM webhook_deliveries d JOIN webhook_messages m ON m.id = d.message_id
            WHERE d.endpoint_id = $1 AND d.status = ANY($2::text[])
              AND m.created_at >= $3 AND ($4::timestamptz IS NULL OR m.created_at < $4)
            ORDER BY m.created_at, m.id LIMIT ${REPLAY_MAX_MESSAGES})
         UPDATE webhook_deliveries d
            SET status = 'pending', round_failures = 0, updated_at = now(),
                next_attempt_at = now() + chosen.n * $5 * interval '1 millisecond'
           FROM chosen WHERE d.endpoint_id = $1 AND d.message_id = chosen.message_id`,
        [request.endpointId, statuses, request.since, until, spacingMs],
      );
      if (rowCount) await endpointQueue(client, request.endpointId);
      return rowCount ?? 0;
    }
    if (!request.subscriptionId) {
      throw new ApiError(
        'VALIDATION_FAILED',
        { summary: 'body.endpointId or body.subscriptionId is required' },
        {
          details: [{ field: 'body.endpointId', message: 'or body.subscriptionId is required' }],
        },
      );
    }
    const owned = await client.query(
      'SELECT 1 FROM event_notifier_subscriptions WHERE id = $1 AND project_id = $2 FOR UPDATE',
      [request.subscriptionId, projectId],
    );
    if (owned.rows.length === 0)
      throw new ApiError('NOT_FOUND', { resource: 'Subscription', id: request.subscriptionId });
    const recordStatuses = statuses.map((s) => (s === 'delivered' ? 'notified' : s));
    const { rowCount } = await client.query(
      `WITH chosen AS (
         SELECT id, row_number() OVER (ORDER BY created_at, id) - 1 AS n FROM event_notifier_records
          WHERE subscription_id = $1 AND status = ANY($2::text[]) AND removed_at IS NULL
            AND created_at >= $3 AND ($4::timestamptz IS NULL OR created_at < $4)
          ORDER BY created_at, id LIMIT ${REPLAY_MAX_MESSAGES})
       UPDATE event_notifier_records r
          SET status = 'scanned', status_changed_at = now(), updated_at = now(), round_failures = 0,
              round_max_retries = NULL, next_attempt_at = now() + chosen.n * $5 * interval '1 millisecond'
         FROM chosen WHERE r.id = chosen.id`,
      [request.subscriptionId, recordStatuses, request.since, until, spacingMs],
    );
    if (rowCount) await deliverJob.enqueue(client, { subscriptionId: request.subscriptionId });
    return rowCount ?? 0;
  });
}
