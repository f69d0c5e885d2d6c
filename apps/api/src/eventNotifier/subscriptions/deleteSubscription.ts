import type { Db } from '#api/db/db.ts';
import { findSubscription } from './subscriptions.ts';

/**
 * Deletes a project's subscription and everything of it, in one transaction: its records (and their removal
 * notices), its own webhook's pending deliveries and attempt log, and the copies of its records the project's
 * endpoints receive, with their deliveries and attempts. Its scan and delivery jobs find it gone and end: with its
 * records gone, a delivery claims nothing more, and a batch already on its way records nothing (see the record() of
 * subscriptionDestination, which takes the subscription's row first). NOT_FOUND when it is not the project's.
 */
export async function deleteSubscription(db: Db, projectId: number, id: string): Promise<void> {
  await db.transaction(async (client) => {
    // The subscription's row first, as a delivery's record() takes it before its records' rows.
    await findSubscription(client, projectId, id, { forUpdate: true });
    await client.query(
      `WITH copies AS (DELETE FROM webhook_messages WHERE subscription_id = $1 RETURNING id)
       DELETE FROM webhook_attempts
        WHERE project_id = $2 AND (subscription_id = $1 OR message_id IN (SELECT id FROM copies))`,
      [id, projectId],
    );
    await client.query('DELETE FROM event_notifier_subscriptions WHERE id = $1', [id]);
  });
}
