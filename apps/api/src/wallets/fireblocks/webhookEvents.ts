import { createHash } from 'node:crypto';
import type { Db } from '#api/db/db.ts';

/**
 * How old a Fireblocks webhook may be, by its `timestamp`, and still be applied: 6 hours, past Fireblocks' last
 * retry (15345 s, about 4 h 16 min after the first attempt). An older one is refused: a replay of a captured body,
 * or a delivery so late that polling has long told the platform more.
 */
export const FIREBLOCKS_WEBHOOK_MAX_AGE_MS = 6 * 60 * 60 * 1000;
/** How far ahead of this server's clock a webhook's `timestamp` may be: clocks differ a little. */
export const FIREBLOCKS_WEBHOOK_MAX_AHEAD_MS = 5 * 60 * 1000;

const minutes = (ms: number) => `${Math.round(ms / 60_000)} minutes`;

/** Why a webhook's `timestamp` (milliseconds since the epoch) is refused, or `undefined` when it is in the window. */
export function webhookTimestampRefusal(timestamp: unknown, now = Date.now()): string | undefined {
  if (typeof timestamp !== 'number' || !Number.isFinite(timestamp)) return 'is missing or not a number';
  if (timestamp < now - FIREBLOCKS_WEBHOOK_MAX_AGE_MS) return `is ${minutes(now - timestamp)} old`;
  if (timestamp > now + FIREBLOCKS_WEBHOOK_MAX_AHEAD_MS) return `is ${minutes(timestamp - now)} ahead of this server`;
  return undefined;
}

/**
 * An event's name: its transaction's id and update time (`lastUpdated`), with the row it names (`externalTxId`),
 * the status, sub-status and hash, so that two changes Fireblocks stamped with the same millisecond stay two
 * events. The same body sent again has it.
 */
export function webhookEventKey(data: Record<string, unknown>): Buffer {
  const parts = [data.id, data.externalTxId, data.lastUpdated, data.status, data.subStatus, data.txHash];
  return createHash('sha256')
    .update(JSON.stringify(parts.map((v) => v ?? null)))
    .digest();
}

/** Whether an event with this key was applied already (within the window: older rows are pruned). */
export async function webhookEventSeen(db: Pick<Db, 'query'>, key: Buffer): Promise<boolean> {
  const { rowCount } = await db.query(
    'SELECT 1 FROM fireblocks_webhook_events WHERE event_key = $1',
    [key],
    'fireblocks-webhook-seen',
  );
  return (rowCount ?? 0) > 0;
}

/**
 * Records an applied event, after it was applied: an event whose statement failed is taken again when Fireblocks
 * retries it. Prunes the rows of events that would now be refused by their timestamp.
 */
export async function recordWebhookEvent(db: Pick<Db, 'query'>, key: Buffer): Promise<void> {
  await db.query(
    `WITH pruned AS (DELETE FROM fireblocks_webhook_events WHERE received_at < now() - make_interval(secs => $2))
     INSERT INTO fireblocks_webhook_events (event_key) VALUES ($1) ON CONFLICT (event_key) DO NOTHING`,
    [key, (FIREBLOCKS_WEBHOOK_MAX_AGE_MS + FIREBLOCKS_WEBHOOK_MAX_AHEAD_MS) / 1000],
    'fireblocks-webhook-record',
  );
}
