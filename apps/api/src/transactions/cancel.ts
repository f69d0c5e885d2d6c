import type { Db } from '#api/db/db.ts';
import { transactionCancellations } from '#api/metrics/instruments.ts';
import { wakeMonitor } from './jobs.ts';
import { applyDueCancels } from './lifecycle.ts';
import { refusal } from './speedUp.ts';
import { getTransaction, type Transaction } from './transactions.ts';

/** The errorMessage of a transaction cancelled by cancel-transaction. */
export const CANCELLED_BY_REQUEST = 'Cancelled by cancel-transaction';

/**
 * Cancels a transaction that is not mined: one not sent yet (`created`) is `cancelled` at once, never sent, and
 * its nonce is never taken; a sent one becomes `cancelling`, and its wallet's monitor sends a 0-value transfer to
 * the wallet itself at its nonce (both fees at least 10% above the original's and the network's, never above the
 * fee cap): whichever of the two is mined decides, `cancelled` or the original's own outcome. One being signed at
 * this moment (`processing`) becomes `cancelling` once it is sent. A custodian that signs and sends (Fireblocks)
 * cancels one it holds unsigned, and drops one it sent (custodianReplacements.ts). Asking again answers the
 * transaction as it is.
 */
export async function cancelTransaction(db: Db, projectId: number, transactionId: string): Promise<Transaction> {
  const t = await getTransaction(db, projectId, transactionId);
  if (t.status === 'cancelling' || t.status === 'cancelled') return t;
  const target = { walletId: t.mSystemWalletId, networkId: t.networkId };
  if (t.blockNumber === null && ['created', 'processing', 'broadcasted'].includes(t.status)) {
    const { rowCount } = await db.query(
      `UPDATE transactions SET cancel_requested_at = clock_timestamp(), cancel_reason = $3, updated_at = clock_timestamp()
        WHERE project_id = $1 AND id = $2 AND status IN ('created', 'processing', 'broadcasted')
          AND block_number IS NULL AND cancel_requested_at IS NULL`,
      [projectId, transactionId, CANCELLED_BY_REQUEST],
    );
    if (rowCount) {
      transactionCancellations.inc({ outcome: 'asked' });
      await applyDueCancels(db, target, { sent: true, id: transactionId });
      await wakeMonitor(db, target);
      return getTransaction(db, projectId, transactionId);
    }
  }
  const now = await getTransaction(db, projectId, transactionId);
  if (now.status === 'cancelling' || now.status === 'cancelled') return now;
  throw refusal(now);
}
