import type { ATTEMPT_OUTCOMES } from '#api/schemas/webhookLog.ts';
import type { WebhookEventType } from '#api/webhooks/eventTypes.ts';

type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

import type { Db } from '#api/db/db.ts';
import { CURSOR_IDS, decodeCursor, encodeCursor } from './cursor.ts';

export interface AttemptFilter {
  endpointId?: string | undefined;
  subscriptionId?: string | undefined;
  eventType?: string | undefined;
  /** `delivered`, `failed` (any failure), or one failure class. */
  outcome?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  cursor?: string | undefined;
  limit: number;
}

interface AttemptRow {
  id: number;
  message_id: string;
  endpoint_id: string | null;
  subscription_id: string | null;
  event_type: string;
  url: string;
  attempted_at: Date;
  outcome: string;
  http_status: number | null;
  duration_ms: number;
  response: string | null;
}

/** One page of the project's attempts, newest first, and the cursor of the next page (null on the last). */
export async function listAttempts(db: Db, projectId: number, filter: AttemptFilter) {
  const cursor = decodeCursor(filter.cursor, CURSOR_IDS.attempt);
  const where = ['project_id = $1'];
  const params: unknown[] = [projectId];
  const add = (clause: string, value: unknown) => {
    params.push(value);
    where.push(clause.replace('?', `$${params.length}`));
  };
  if (filter.endpointId) add('endpoint_id = ?', filter.endpointId);
  if (filter.subscriptionId) add('subscription_id = ?', filter.subscriptionId);
  if (filter.eventType) add('event_type = ?', filter.eventType);
  if (filter.outcome === 'failed') where.push(`outcome <> 'delivered'`);
  else if (filter.outcome) add('outcome = ?', filter.outcome);
  if (filter.since) add('attempted_at >= ?', filter.since);
  if (filter.until) add('attempted_at < ?', filter.until);
  if (cursor) {
    params.push(cursor.at, Number(cursor.id));
    where.push(`(attempted_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::bigint)`);
  }
  params.push(filter.limit + 1);
  const { rows } = await db.query<AttemptRow>(
    `SELECT * FROM webhook_attempts WHERE ${where.join(' AND ')}
      ORDER BY attempted_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  const page = rows.slice(0, filter.limit);
  const last = page.at(-1);
  return {
    webhookAttempts: page.map((r) => ({
      id: String(r.id),
      webhookId: r.message_id,
      endpointId: r.endpoint_id,
      subscriptionId: r.subscription_id,
      eventType: r.event_type as WebhookEventType,
      url: r.url,
      attemptedAt: r.attempted_at.toISOString(),
      outcome: r.outcome as AttemptOutcome,
      httpStatus: r.http_status,
      durationMs: r.duration_ms,
      response: r.response,
    })),
    nextCursor: rows.length > filter.limit && last ? encodeCursor(last.attempted_at, last.id) : null,
  };
}
