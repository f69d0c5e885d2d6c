import type { Db } from '#api/db/db.ts';
import { queueDelivery, queueScan } from './queue.ts';

/**
 * Puts back the jobs a killed worker took with it. Scans: enabled subscriptions left `scanning` (the scan itself
 * skips when another worker still holds the subscription) or overdue by more than `graceMs`. Deliveries:
 * subscriptions with a record whose attempt is overdue by more than `graceMs`.
 */
export async function sweep(db: Db, graceMs: number): Promise<{ scans: number; deliveries: number }> {
  const scans = await db.query<{ id: string }>(
    `SELECT id FROM event_notifier_subscriptions
      WHERE scan_enabled
        AND (scan_status = 'scanning' OR next_scan_at IS NULL OR next_scan_at < now() - $1 * interval '1 millisecond')`,
    [graceMs],
  );
  for (const { id } of scans.rows) await queueScan(db.pool, id);
  const deliveries = await db.query<{ id: string }>(
    `SELECT s.id FROM event_notifier_subscriptions s
      WHERE s.webhook_url IS NOT NULL
        AND EXISTS (SELECT 1 FROM event_notifier_records r
                     WHERE r.subscription_id = s.id AND r.status = 'scanned'
                       AND r.next_attempt_at < now() - $1 * interval '1 millisecond'
                       AND (s.webhook_enabled OR r.forced))`,
    [graceMs],
  );
  for (const { id } of deliveries.rows) await queueDelivery(db.pool, id);
  return { scans: scans.rows.length, deliveries: deliveries.rows.length };
}
