import { type Address, type Hex, type PublicClient, parseTransaction, type TransactionReceipt } from 'viem';
import type { Db } from '#api/db/db.ts';
import { mapLimit } from '#api/lib/mapLimit.ts';
import { type ChainView, canonicalHashes } from './canonical.ts';
import { ensureDevFunds } from './devChain.ts';
import { receiptOf } from './receipts.ts';
import type { WalletNetwork } from './senders.ts';

/** A mined transaction still watched (its block not final yet), or one the chain may have taken back. */
interface MinedRow {
  id: string;
  hashes: Hex[];
  nonce: number;
  blockNumber: number;
  blockHash: string | null;
  raw: Hex | null;
}

const MINED_COLUMNS = `id, previous_hashes AS hashes, nonce, block_number AS "blockNumber", block_hash AS "blockHash",
  raw_transaction AS raw`;

/** What one look at the mined transactions found. */
export interface CanonicalReport {
  /** Mined transactions still short of final. */
  watched: number;
  /** Became final in this look. */
  finalized: number;
  /** Found in another block (a reorg re-included them). */
  moved: number;
  /** Their block left the chain and no other block holds them: back to `broadcasted`, broadcast again. */
  takenBack: number;
}

/**
 * The second look at mined transactions, until final: is each one's block still on the canonical chain?
 * - its block is still there (same hash): final once at or below the finalized block;
 * - its block is gone (another hash at that height, or a chain shorter than it while the node does not lag):
 *   its receipt is asked for again; a new block holds it → its block fields (and outcome) follow that block;
 *   none does → back to `broadcasted` with its block fields cleared, and its signed bytes are broadcast again.
 * Final transactions are looked at again only when the wallet's mined nonce falls below theirs (a chain reset):
 * then they follow the same rule. One row is never two transactions: the same signed bytes, the same nonce.
 */
export async function followCanonical(
  db: Db,
  client: PublicClient,
  target: WalletNetwork,
  view: ChainView,
  minedCount: number,
  address: Address,
): Promise<CanonicalReport> {
  const report: CanonicalReport = { watched: 0, finalized: 0, moved: 0, takenBack: 0 };
  const { rows } = await db.query<MinedRow>(
    `SELECT ${MINED_COLUMNS} FROM transactions
      WHERE system_wallet_id = $1 AND network_id = $2 AND status IN ('succeeded', 'reverted')
        AND (finalized_at IS NULL OR ($3 AND nonce >= $4))
      ORDER BY nonce LIMIT 1000`,
    [target.walletId, target.networkId, !view.lagging, minedCount],
  );
  if (rows.length === 0) return report;
  const heights = rows.map((r) => Number(r.blockNumber)).filter((n) => n <= view.head);
  const hashes = await canonicalHashes(client, heights);
  const gone: MinedRow[] = [];
  const final: string[] = [];
  for (const row of rows) {
    const height = Number(row.blockNumber);
    // Above the head: unknown to a lagging node; gone once a lower head has lasted (a rollback, a reset).
    if (height > view.head) {
      if (!view.lagging) gone.push(row);
      continue;
    }
    const canonical = hashes.get(height);
    // A load-balanced provider may answer each call from another node: a block this answer did not know, or a
    // mined count below the row's nonce next to its block still there, is decided on a later look.
    if (canonical === undefined) continue;
    if (row.blockHash === null || canonical === row.blockHash) {
      if (Number(row.nonce) < minedCount && height <= view.finalized) final.push(row.id);
      continue;
    }
    if (!view.lagging) gone.push(row);
  }
  if (final.length > 0) {
    await db.query(
      `UPDATE transactions SET finalized_at = clock_timestamp(), updated_at = clock_timestamp()
        WHERE id = ANY($1::uuid[]) AND finalized_at IS NULL`,
      [final],
    );
    report.finalized = final.length;
  }
  const receipts = await mapLimit(gone, 16, (row) => receiptOf(client, row.hashes));
  for (const [i, row] of gone.entries()) {
    const receipt = receipts[i];
    if (receipt && (receipt.blockHash !== row.blockHash || Number(receipt.blockNumber) !== Number(row.blockNumber))) {
      await moveToBlock(db, row.id, receipt);
      report.moved++;
    } else if (!receipt) {
      if (report.takenBack === 0) await ensureDevFunds(client, target.networkId, address);
      await takeBack(db, client, row);
      report.takenBack++;
    }
  }
  report.watched = rows.length - report.finalized - report.takenBack;
  return report;
}

/** A reorg re-included the transaction in another block: its fields follow the receipt there. */
async function moveToBlock(db: Db, id: string, receipt: TransactionReceipt): Promise<void> {
  await db.query(
    `UPDATE transactions SET status = $2, transaction_hash = $3, gas_used = $4, gas_price = $5, block_number = $6,
       block_hash = $7, finalized_at = NULL,
       error_message = CASE WHEN $2 = 'succeeded' THEN NULL
                            ELSE coalesce(error_message, 'Reverted on chain (in the block that now holds it)') END,
       updated_at = clock_timestamp()
     WHERE id = $1 AND status IN ('succeeded', 'reverted')`,
    [
      id,
      receipt.status === 'success' ? 'succeeded' : 'reverted',
      receipt.transactionHash,
      receipt.gasUsed.toString(),
      receipt.effectiveGasPrice.toString(),
      Number(receipt.blockNumber),
      receipt.blockHash,
    ],
  );
}

/**
 * The chain took the transaction back: it waits again (`broadcasted`, block fields cleared, its fee fields those
 * it was signed with), and its signed bytes go to the node again if the node lost them.
 */
async function takeBack(db: Db, client: PublicClient, row: MinedRow): Promise<void> {
  const signed = row.raw ? parseTransaction(row.raw) : undefined;
  await db.query(
    `UPDATE transactions SET status = 'broadcasted', block_number = NULL, block_hash = NULL, gas_used = NULL,
       finalized_at = NULL, error_message = NULL, gas_price = coalesce($2::numeric, gas_price),
       broadcasted_at = clock_timestamp(), updated_at = clock_timestamp()
     WHERE id = $1 AND status IN ('succeeded', 'reverted')`,
    [row.id, signed?.maxFeePerGas?.toString() ?? null],
  );
  if (row.raw) await rebroadcast(client, row.raw);
}

/** Sends signed bytes again; "already known" and "nonce too low" (mined meanwhile) are what it hopes for. */
export async function rebroadcast(client: PublicClient, raw: Hex): Promise<void> {
  await client.sendRawTransaction({ serializedTransaction: raw }).catch(() => {});
}
