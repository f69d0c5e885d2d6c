import {
  type Hex,
  keccak256,
  type PublicClient,
  serializeTransaction,
  type Transaction,
  type TransactionSerializable,
} from 'viem';
import { inRpcBatches } from '#api/chain/rpcBatches.ts';
import type { Db } from '#api/db/db.ts';
import { mapLimit } from '#api/lib/mapLimit.ts';
import type { Submitter } from '#api/wallets/custody.ts';
import {
  advanceCustodianRow,
  CUSTODIAN_OPERATION_DUE,
  CUSTODIAN_ROW_COLUMNS,
  type CustodianRow,
} from './custodianReplacements.ts';
import { applyCustodianView } from './custodyStatus.ts';
import { markMonitorFailed } from './lifecycle.ts';
import { receiptOf } from './receipts.ts';
import type { WalletNetwork } from './senders.ts';
import type { TransactionSettings } from './settings.ts';

/** Status look-ups in flight at once per wallet (each paced by the custodian's request budget). */
const LOOKUPS_IN_FLIGHT = 4;
/** Rows looked at per pass, most overdue first. */
const ROWS_PER_PASS = 100;

/** What one pass over a submitter wallet's custodian transactions found. */
export interface CustodianReport {
  /** Rows the custodian holds without a hash yet (waiting for its policy, its queue, its signature). */
  pending: number;
}

/**
 * The monitor's look at the custodian, for a wallet whose custodian signs and broadcasts (DESIGN §6):
 * - each unfinished custodian transaction whose last look is older than the submitter's poll interval is asked for
 *   its status (webhooks, when configured, move them sooner), and the answer applied (applyCustodianView);
 * - a transaction the custodian calls failed after it had a hash is `monitor-failed` only when the chain holds no
 *   receipt for any of its hashes and the node does not know it (the chain, not the custodian, says it happened);
 * - a broadcast row's nonce and signed bytes are taken from the node once it knows the hash: the nonce is shown as
 *   for any transaction, and the bytes let a row whose block a reorg removed be broadcast again, as the very same
 *   transaction.
 */
export async function followCustodian(
  db: Db,
  client: PublicClient,
  target: WalletNetwork,
  submitter: Submitter,
  settings: TransactionSettings,
): Promise<CustodianReport> {
  const { rows } = await db.query<CustodianRow>(
    `SELECT ${CUSTODIAN_ROW_COLUMNS} FROM transactions
      WHERE system_wallet_id = $1 AND network_id = $2 AND custody_id IS NOT NULL
        AND status IN ('processing', 'broadcasted', 'cancelling')
        AND (custody_checked_at IS NULL OR custody_checked_at < clock_timestamp() - $3 * interval '1 millisecond'
             OR (${CUSTODIAN_OPERATION_DUE} AND custody_checked_at < clock_timestamp() - interval '1 second'))
      ORDER BY custody_checked_at NULLS FIRST LIMIT ${ROWS_PER_PASS}`,
    [target.walletId, target.networkId, submitter.pollIntervalMs],
  );
  await mapLimit(rows, LOOKUPS_IN_FLIGHT, async (row) => {
    // A cancel or speed-up first: the look that follows sees what it did.
    await advanceCustodianRow(db, client, target, submitter, settings, row);
    let view: Awaited<ReturnType<Submitter['status']>>;
    try {
      view = await submitter.status(row.custodyId);
    } catch {
      // The custodian is down or refuses the look-up: the next look is one poll interval away, as after an answer.
      await db.query('UPDATE transactions SET custody_checked_at = clock_timestamp() WHERE id = $1', [row.id]);
      return;
    }
    await applyCustodianView(db, row.id, submitter.provider, view);
    if (view.failed && row.status === 'broadcasted') await failIfNotOnChain(db, client, row.id, view.description);
  });
  await takeFromChain(db, client, target);
  const { rows: pending } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM transactions
      WHERE system_wallet_id = $1 AND network_id = $2 AND status = 'processing'`,
    [target.walletId, target.networkId],
  );
  return { pending: pending[0]?.n ?? 0 };
}

/** The custodian gave up on a broadcast transaction: monitor-failed, unless the chain has it or its node holds it. */
async function failIfNotOnChain(db: Db, client: PublicClient, id: string, description: string): Promise<void> {
  const { rows } = await db.query<{ hashes: Hex[] }>(
    `SELECT previous_hashes AS hashes FROM transactions WHERE id = $1 AND status = 'broadcasted'`,
    [id],
  );
  const hashes = rows[0]?.hashes ?? [];
  if (hashes.length === 0 || (await receiptOf(client, hashes))) return;
  for (const hash of hashes) {
    if (await client.getTransaction({ hash }).catch(() => undefined)) return;
  }
  await markMonitorFailed(
    db,
    id,
    'custodian-failed-off-chain',
    `${description}; no block holds it and the node does not know it`,
  );
}

/** Nonce and signed bytes of broadcast custodian transactions, from the node (see followCustodian). */
async function takeFromChain(db: Db, client: PublicClient, target: WalletNetwork): Promise<void> {
  const { rows } = await db.query<{ id: string; hash: Hex }>(
    `SELECT id, transaction_hash AS hash FROM transactions
      WHERE system_wallet_id = $1 AND network_id = $2 AND custody_id IS NOT NULL AND transaction_hash IS NOT NULL
        AND status IN ('broadcasted', 'succeeded', 'reverted') AND raw_transaction IS NULL
      ORDER BY created_at LIMIT ${ROWS_PER_PASS}`,
    [target.walletId, target.networkId],
  );
  if (rows.length === 0) return;
  const found = await inRpcBatches(rows, 1, (row) =>
    client.getTransaction({ hash: row.hash }).then(
      (tx) => ({ row, tx }),
      () => ({ row, tx: undefined }),
    ),
  );
  for (const { row, tx } of found) {
    if (!tx) continue;
    const raw = signedBytes(tx);
    // A custodian may send two transactions with one nonce (one replaces the other in the pool): the nonce stays
    // with the row that holds it first; the other keeps its bytes, and the chain decides which one is mined.
    await db.query(
      `UPDATE transactions t SET nonce = CASE WHEN EXISTS (
           SELECT 1 FROM transactions o WHERE o.system_wallet_id = t.system_wallet_id
              AND o.network_id = t.network_id AND o.nonce = $3 AND o.id <> t.id) THEN t.nonce ELSE $3 END,
         raw_transaction = $4, updated_at = clock_timestamp()
        WHERE id = $1 AND transaction_hash = $2`,
      [row.id, row.hash, tx.nonce, raw ?? null],
    );
  }
}

/** The transaction's signed bytes, rebuilt from the node's answer; undefined unless they hash to its hash. */
export function signedBytes(tx: Transaction): Hex | undefined {
  if (tx.r === undefined || tx.s === undefined) return undefined;
  const fields = {
    chainId: tx.chainId,
    type: tx.type,
    nonce: tx.nonce,
    to: tx.to,
    data: tx.input,
    value: tx.value,
    gas: tx.gas,
    ...(tx.type === 'legacy' ? { gasPrice: tx.gasPrice } : {}),
    ...(tx.type === 'eip2930' ? { gasPrice: tx.gasPrice, accessList: tx.accessList } : {}),
    ...(tx.type === 'eip1559'
      ? { maxFeePerGas: tx.maxFeePerGas, maxPriorityFeePerGas: tx.maxPriorityFeePerGas, accessList: tx.accessList }
      : {}),
  } as TransactionSerializable;
  try {
    const raw = serializeTransaction(fields, { r: tx.r, s: tx.s, v: tx.v, yParity: tx.yParity });
    return keccak256(raw) === tx.hash ? raw : undefined;
  } catch {
    return undefined;
  }
}
