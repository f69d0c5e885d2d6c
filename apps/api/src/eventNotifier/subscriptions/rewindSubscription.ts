import type { Db } from '#api/db/db.ts';
import { validationError } from '#api/errors/ApiError.ts';
import { deliverJob } from '#api/eventNotifier/delivery/jobs.ts';
import type { SubscriptionRow } from '#api/eventNotifier/rows.ts';
import { SCAN_LOCK_CLASS, scanJob } from '#api/eventNotifier/scanning/jobs.ts';
import { applyRewind } from '#api/eventNotifier/scanning/rewind.ts';
import { tryTransactionLock } from '#api/jobs/advisoryLock.ts';
import { findSubscription, type SubscriptionView, toSubscriptionView, type ViewSettings } from './subscriptions.ts';

export interface RewindOutcome {
  subscription: SubscriptionView;
  /** Records queued for delivery again (redeliver); null while the rewind waits for a running scan to end. */
  redeliveredCount: number | null;
}

/**
 * Scans a project's subscription again from `fromBlock` (applyRewind). When no scan of it runs, the rewind is
 * applied at once; while one runs, it is stored and the next scan, queued for as soon as that one ends, applies it
 * first. A rewind goes back only: `fromBlock` past the next block to scan is refused. NOT_FOUND when it is not the
 * project's.
 */
export async function rewindSubscription(
  db: Db,
  settings: ViewSettings,
  projectId: number,
  id: string,
  fromBlock: number,
  redeliver: boolean,
): Promise<RewindOutcome> {
  return db.transaction(async (client) => {
    const current = await findSubscription(client, projectId, id, { forUpdate: true });
    const next = Math.max(current.initial_block_number, (current.last_scanned_block ?? -1) + 1);
    if (fromBlock > next) {
      throw validationError([
        { field: 'body.fromBlock', message: `is past the next block to scan (${next}): a rewind goes back only` },
      ]);
    }
    let redeliveredCount: number | null = null;
    if (await tryTransactionLock(client, [SCAN_LOCK_CLASS, id])) {
      // No scan runs, and none starts before this commits.
      redeliveredCount = await applyRewind(client, id, fromBlock, redeliver);
      if (redeliveredCount > 0 && current.webhook_enabled) await deliverJob.enqueue(client, { subscriptionId: id });
    } else {
      await client.query(
        `UPDATE event_notifier_subscriptions
            SET rewind_from_block = least(coalesce(rewind_from_block, $2), $2),
                rewind_redeliver = rewind_redeliver OR $3
          WHERE id = $1`,
        [id, fromBlock, redeliver],
      );
    }
    const { rows } = await client.query<SubscriptionRow>(
      `UPDATE event_notifier_subscriptions SET next_scan_at = CASE WHEN scan_enabled THEN now() END
        WHERE id = $1 RETURNING *`,
      [id],
    );
    const row = rows[0] as SubscriptionRow;
    if (row.scan_enabled) await scanJob.enqueue(client, { subscriptionId: id });
    return { subscription: toSubscriptionView(row, settings), redeliveredCount };
  });
}
