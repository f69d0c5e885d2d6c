import type { Db } from '#api/db/db.ts';
import { ApiError } from '#api/errors/ApiError.ts';
import type { WebhookEventType } from '#api/webhooks/eventTypes.ts';
import { CURSOR_IDS, decodeCursor, encodeCursor } from './cursor.ts';

export interface MessageFilter {
  endpointId?: string | undefined;
  subscriptionId?: string | undefined;
  eventType?: string | undefined;
  status?: 'pending' | 'delivered' | 'failed' | undefined;
  since?: string | undefined;
  until?: string | undefined;
  cursor?: string | undefined;
  limit: number;
}

interface MessageRow {
  id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: Date | null;
  created_at: Date;
  cursor_at: string;
}

const MICROSECONDS = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/**
 * One page of the messages of an endpoint (its deliveries) or of a subscription's own webhook (its records: the
 * record id is the `webhook-id`), newest first, with the cursor of the next page. Another project's endpoint or
 * subscription is a 404.
 */
export async function listMessages(db: Db, projectId: number, filter: MessageFilter) {
  const cursor = decodeCursor(filter.cursor, CURSOR_IDS.message);
  const params: unknown[] = [];
  const where: string[] = [];
  const add = (clause: string, value: unknown) => {
    params.push(value);
    where.push(clause.replaceAll('?', `$${params.length}`));
  };
  let source: string;
  if (filter.endpointId) {
    await assertOwned(db, 'webhook_endpoints', 'Webhook endpoint', projectId, filter.endpointId);
    add('d.endpoint_id = ?', filter.endpointId);
    source = `SELECT m.id, m.event_type, d.status, d.attempts, d.next_attempt_at, m.created_at
                FROM webhook_deliveries d JOIN webhook_messages m ON m.id = d.message_id`;
  } else if (filter.subscriptionId) {
    await assertOwned(db, 'event_notifier_subscriptions', 'Subscription', projectId, filter.subscriptionId);
    add('r.subscription_id = ?', filter.subscriptionId);
    source = `SELECT r.id,
                     CASE WHEN r.removal_of IS NULL THEN 'event_notifier.event' ELSE 'event_notifier.event.removed' END
                       AS event_type,
                     CASE r.status WHEN 'scanned' THEN 'pending' WHEN 'notified' THEN 'delivered' ELSE 'failed' END
                       AS status,
                     r.notification_failure_count + (r.status = 'notified')::int AS attempts,
                     r.next_attempt_at, r.created_at
                FROM event_notifier_records r`;
  } else {
    throw new ApiError(
      'VALIDATION_FAILED',
      { summary: 'querystring.endpointId or querystring.subscriptionId is required' },
      {
        details: [{ field: 'querystring.endpointId', message: 'or querystring.subscriptionId is required' }],
      },
    );
  }
  const outer: string[] = [];
  const addOuter = (clause: string, value: unknown) => {
    params.push(value);
    outer.push(clause.replaceAll('?', `$${params.length}`));
  };
  if (filter.eventType) addOuter('event_type = ?', filter.eventType);
  if (filter.status) addOuter('status = ?', filter.status);
  if (filter.since) addOuter('created_at >= ?', filter.since);
  if (filter.until) addOuter('created_at < ?', filter.until);
  if (cursor) {
    params.push(cursor.at, cursor.id);
    outer.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
  }
  params.push(filter.limit + 1);
  const { rows } = await db.query<MessageRow>(
    `SELECT *, to_char(created_at AT TIME ZONE 'UTC', ${MICROSECONDS}) AS cursor_at
       FROM (${source} WHERE ${where.join(' AND ')}) x
      ${outer.length > 0 ? `WHERE ${outer.join(' AND ')}` : ''}
      ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  const page = rows.slice(0, filter.limit);
  const last = page.at(-1);
  return {
    webhookMessages: page.map((r) => ({
      webhookId: r.id,
      endpointId: filter.endpointId ?? null,
      subscriptionId: filter.subscriptionId ?? null,
      eventType: r.event_type as WebhookEventType,
      status: r.status,
      attempts: r.attempts,
      nextAttemptAt: r.next_attempt_at?.toISOString() ?? null,
      createdAt: r.created_at.toISOString(),
    })),
    nextCursor: rows.length > filter.limit && last ? encodeCursor(last.cursor_at, last.id) : null,
  };
}

async function assertOwned(db: Db, table: string, resource: string, projectId: number, id: string) {
  const { rows } = await db.query(`SELECT 1 FROM ${table} WHERE id = $1 AND project_id = $2`, [id, projectId]);
  if (rows.length === 0) throw new ApiError('NOT_FOUND', { resource, id });
}
