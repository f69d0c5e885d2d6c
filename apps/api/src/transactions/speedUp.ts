import type { Db } from '#api/db/db.ts';
import { ApiError } from '#api/errors/ApiError.ts';
import { transactionSpeedUps } from '#api/metrics/instruments.ts';
import { wakeMonitor } from './jobs.ts';
import { getTransaction, TRANSACTION_COLUMNS, type Transaction } from './transactions.ts';

/** speed-up-transaction's default multiplier of the fees. */
export const DEFAULT_FEE_MULTIPLIER = 1.5;

/**
 * Asks for a waiting transaction to be re-signed at its nonce, with the same call and value, and its fees multiplied
 * by `multiplier` (or raised to the network's current fees with headroom, if those are higher), never above the
 * network's fee cap. The monitor of its wallet does it within its next pass (it is the one that re-prices waiting
 * transactions, so two replacements never race); get-transaction then shows the new fees and hash, and whichever
 * version the chain mines gives the outcome; for a custodian that signs and sends (Fireblocks), the replacement is
 * its own, at the same nonce (custodianReplacements.ts). Answers the transaction as it is now.
 */
export async function speedUpTransaction(
  db: Db,
  projectId: number,
  transactionId: string,
  multiplier: number,
): Promise<Transaction> {
  const { rows } = await db.query<Transaction>(
    `UPDATE transactions SET speed_up_multiplier = $3, updated_at = clock_timestamp()
      WHERE project_id = $1 AND id = $2 AND status = 'broadcasted'
      RETURNING ${TRANSACTION_COLUMNS}`,
    [projectId, transactionId, multiplier],
  );
  const asked = rows[0];
  if (asked) {
    transactionSpeedUps.inc({ outcome: 'asked' });
    await wakeMonitor(db, { walletId: asked.mSystemWalletId, networkId: asked.networkId });
    return asked;
  }
  throw refusal(await getTransaction(db, projectId, transactionId));
}

/** Why a transaction cannot be replaced (sped up, cancelled) now. */
export function refusal(t: Transaction): ApiError {
  if (t.blockNumber !== null) {
    return new ApiError('TRANSACTION_ALREADY_MINED', {
      transactionId: t.id,
      status: t.status,
      blockNumber: t.blockNumber,
    });
  }
  const reason =
    t.status === 'created' || t.status === 'processing'
      ? 'it has not been sent yet, and will be at the network’s current fees'
      : t.status === 'cancelling'
        ? 'it is being cancelled'
        : 'it ended without being mined';
  return new ApiError('TRANSACTION_NOT_PENDING', { transactionId: t.id, status: t.status, reason });
}
