import { type Address, type Hex, type PublicClient, parseTransaction } from 'viem';
import { canonicalHashes } from '#api/chain/canonicalBlocks.ts';
import { inRpcBatches } from '#api/chain/rpcBatches.ts';
import type { Db } from '#api/db/db.ts';
import type { ChainView } from './canonical.ts';
import { MINED_STATUSES, markFinal, markReorged } from './lifecycle.ts';
import type { WalletChain, WalletNetwork } from './senders.ts';

/** A block holding mined transactions of the wallet that are still watched. */
interface WatchedBlock {
  blockNumber: number;
  blockHash: Hex | null;
  transactions: number;
}

/** What one look at the mined transactions found. */
export interface CanonicalReport {
  /** Mined transactions still short of final. */
  watched: number;
  /** Became final in this look. */
  finalized: number;
  /** Their block left the chain: back to `broadcasted` (a block that re-included them gives their receipt again). */
  takenBack: number;
}

/** Blocks looked at per look, and transactions taken back per look (the rest in the next, at once). */
const BLOCKS_PER_LOOK = 1_000;
const TAKEN_BACK_PER_LOOK = 5_000;

/**
 * The second look at mined transactions, until final: is each one's block still on the canonical chain? The look
 * is per block, not per transaction (a block holds up to a thousand of them), so that one look covers them all:
 * - a block still there (same hash): its transactions are final once it is at or below the finalized block;
 * - a block gone (another hash at that height, or a chain shorter than it while the node does not lag): its
 *   transactions go back to `broadcasted` with their block fields cleared; the receipt lookup then finds those a
 *   new block holds (their block fields and outcome follow that block), and the signed bytes of those no block
 *   holds are broadcast again.
 * Final transactions are looked at again only when the wallet's mined nonce falls below theirs (a chain reset):
 * then they follow the same rule. One row is never two transactions: the same signed bytes, the same nonce.
 */
export async function followCanonical(
  db: Db,
  client: PublicClient,
  target: WalletNetwork & Pick<WalletChain, 'devChain'>,
  view: ChainView,
  minedCount: number,
  address: Address,
): Promise<CanonicalReport> {
  const report: CanonicalReport = { watched: 0, finalized: 0, takenBack: 0 };
  const { rows: blocks } = await db.query<WatchedBlock>(
    `SELECT block_number::float8 AS "blockNumber", block_hash AS "blockHash", count(*)::int AS transactions
       FROM transactions
      WHERE system_wallet_id = $1 AND network_id = $2 AND status = ANY($5::text[])
        AND block_number IS NOT NULL -- not one that reverted at its estimate, before any block
        AND (finalized_at IS NULL OR ($3 AND nonce >= $4))
      GROUP BY block_number, block_hash ORDER BY block_number LIMIT ${BLOCKS_PER_LOOK}`,
    [target.walletId, target.networkId, !view.lagging, minedCount, MINED_STATUSES],
  );
  if (blocks.length === 0) return report;
  const hashes = await canonicalHashes(
    client,
    blocks.map((b) => b.blockNumber).filter((n) => n <= view.head),
  );
  const gone: WatchedBlock[] = [];
  const final: WatchedBlock[] = [];
  for (const block of blocks) {
    report.watched += block.transactions;
    // Above the head: unknown to a lagging node; gone once a lower head has lasted (a rollback, a reset).
    if (block.blockNumber > view.head) {
      if (!view.lagging) gone.push(block);
      continue;
    }
    const canonical = hashes.get(block.blockNumber);
    // A load-balanced provider may answer each call from another node: a block this answer did not know, or a
    // mined count below a transaction's nonce next to its block still there, is decided on a later look.
    if (canonical === undefined) continue;
    if (block.blockHash === null || canonical === block.blockHash) {
      if (block.blockNumber <= view.finalized) final.push(block);
      continue;
    }
    if (!view.lagging) gone.push(block);
  }
  if (final.length > 0) {
    report.finalized = await markFinal(db, target, final, minedCount);
  }
  if (gone.length > 0) {
    // On the development chain, a reorg can undo the wallet's top-up too.
    await target.devChain.ensureFunds(address);
    report.takenBack = await takeBack(db, client, target, gone, minedCount);
  }
  report.watched -= report.finalized + report.takenBack;
  return report;
}

/**
 * The chain took these blocks back: their transactions wait again (`broadcasted`, block fields cleared, fee
 * fields those they were signed with). Those whose nonce the chain has not used again are broadcast again, in
 * nonce order, in case the node lost them. Answers how many were taken back.
 */
async function takeBack(
  db: Db,
  client: PublicClient,
  target: WalletNetwork,
  blocks: WatchedBlock[],
  minedCount: number,
): Promise<number> {
  const { rows } = await db.query<{ id: string; nonce: string; raw: Hex | null }>(
    `SELECT t.id, t.nonce, t.raw_transaction AS raw
       FROM transactions t JOIN unnest($3::bigint[], $4::text[]) AS b(number, hash)
         ON t.block_number = b.number AND t.block_hash IS NOT DISTINCT FROM b.hash
      WHERE t.system_wallet_id = $1 AND t.network_id = $2 AND t.status = ANY($5::text[])
      ORDER BY t.nonce LIMIT ${TAKEN_BACK_PER_LOOK}`,
    [
      target.walletId,
      target.networkId,
      blocks.map((b) => b.blockNumber),
      blocks.map((b) => b.blockHash),
      MINED_STATUSES,
    ],
  );
  if (rows.length === 0) return 0;
  // A mined transaction's gas_price is what it paid; waiting again, it is the fee cap it was signed with.
  const signedFeeCap = rows.map((r) => (r.raw ? (parseTransaction(r.raw).maxFeePerGas?.toString() ?? null) : null));
  await markReorged(
    db,
    rows.map((r, i) => ({ id: r.id, signedFeeCap: signedFeeCap[i] ?? null })),
  );
  const unmined = rows.filter((r) => r.raw && Number(r.nonce) >= minedCount);
  await inRpcBatches(unmined, 1, (row) => rebroadcast(client, row.raw as Hex));
  return rows.length;
}

/** Sends signed bytes again; "already known" and "nonce too low" (mined meanwhile) are what it hopes for. */
export async function rebroadcast(client: PublicClient, raw: Hex): Promise<void> {
  await client.sendRawTransaction({ serializedTransaction: raw }).catch(() => {});
}
