import type { Db } from '#api/db/db.ts';

/** Rows one statement of the purge deletes: its cost (and the locks it holds) stays bounded whatever the backlog. */
export const PURGE_BATCH = 5_000;

/**
 * Deletes attempts and messages older than `retentionDays`, oldest first, in batches of PURGE_BATCH (by the
 * `attempted_at` and `created_at` indexes). A message still pending for an endpoint is kept. Returns what it deleted.
 */
export async function purgeWebhookLog(
  db: Db,
  retentionDays: number,
  signal?: AbortSignal,
): Promise<{ attempts: number; messages: number }> {
  const deleted = { attempts: 0, messages: 0 };
  const batches: [keyof typeof deleted, string][] = [
    [
      'attempts',
      `DELETE FROM webhook_attempts WHERE id IN (
         SELECT id FROM webhook_attempts WHERE attempted_at < now() - $1 * interval '1 day'
          ORDER BY attempted_at LIMIT ${PURGE_BATCH})`,
    ],
    [
      'messages',
      `DELETE FROM webhook_messages WHERE id IN (
         SELECT m.id FROM webhook_messages m WHERE m.created_at < now() - $1 * interval '1 day'
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.message_id = m.id AND d.status = 'pending')
          ORDER BY m.created_at LIMIT ${PURGE_BATCH})`,
    ],
  ];
  for (const [what, sql] of batches) {
    while (!signal?.aborted) {
      const { rowCount } = await db.query(sql, [retentionDays]);
      deleted[what] += rowCount ?? 0;
      if ((rowCount ?? 0) < PURGE_BATCH) break;
    }
  }
  return deleted;
}
