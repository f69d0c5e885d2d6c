import { type Hex, isHex, parseGwei } from 'viem';
import type { EvmRpc } from './evmRpc.ts';
import { ApiErrors } from './fireblocksErrors.ts';
import type { TransactionRecord } from './simulatorState.ts';
import type { NewTransaction } from './transactionEngine.ts';

/**
 * Replacements of a broadcast, unmined EVM transaction by another at the same nonce with a higher fee (Replace By
 * Fee), as Fireblocks offers them:
 * - drop, `POST /transactions/{txId}/drop` (API reference "Drop ETH (EVM) transaction by ID": "Drops a stuck ETH
 *   (EVM) transaction and creates a replacement transaction with 0 amount"; support article "Boost or drop a stuck
 *   EVM-based transaction": "a new transaction of 0 value, and a destination identical to the source");
 * - boost, a create with `replaceTxByHash` (guide "Boost Transactions": "the new transaction will be created with the
 *   same nonce value but with a higher fee than the stuck transaction").
 * Both are for a transaction "Confirming or Broadcasting for a long time" (the support article). The replacement is a
 * Fireblocks transaction of its own, taken through the usual statuses, except that it does not queue behind the one
 * it replaces and takes that one's nonce instead of a new one. Whichever of the two is mined completes; the other
 * ends FAILED / DROPPED_BY_BLOCKCHAIN ("The transaction was replaced by another transaction with higher fee") when
 * the node had taken it, FAILED / REJECTED_BY_BLOCKCHAIN ("rejected by the Blockchain due to … bad nonce") when the
 * node refuses it for the nonce that the other used.
 */

/** The statuses in which a transaction may be replaced: signed and sent, not yet mined. */
const REPLACEABLE = new Set(['BROADCASTING', 'CONFIRMING']);
/** Replacement fees are at least this percentage of the replaced transaction's (geth's pool asks for 10% more). */
const BUMP_PERCENT = 110n;
const FEE_LEVELS = new Set(['LOW', 'MEDIUM', 'HIGH']);

/** Why `tx` cannot be replaced, or undefined when it can. */
export function notReplaceable(tx: TransactionRecord): string | undefined {
  if (!REPLACEABLE.has(tx.status)) return `in status ${tx.status}`;
  if (tx.minedHash) return 'as it is mined';
  if (tx.nonce === undefined || tx.versions.length === 0) return 'as it is not signed';
  return undefined;
}

/** Whether `tx` shares its nonce with another transaction (it replaces one, or was replaced). */
export function sharesNonce(tx: TransactionRecord): boolean {
  return tx.replacement !== undefined || (tx.replacedBy?.length ?? 0) > 0;
}

/**
 * How `tx` ends when the chain used its nonce for another transaction before the node took it: DROPPED_BY_BLOCKCHAIN
 * when a replacement with a higher fee took its place, REJECTED_BY_BLOCKCHAIN (bad nonce) otherwise.
 */
export function nonceLostSubStatus(tx: TransactionRecord): string {
  return (tx.replacedBy?.length ?? 0) > 0 ? 'DROPPED_BY_BLOCKCHAIN' : 'REJECTED_BY_BLOCKCHAIN';
}

/** Links the new transaction `tx` to the one it replaces: the same nonce, that one's last hash as `replacedTxHash`. */
export function linkReplacement(tx: TransactionRecord, replaces: NonNullable<NewTransaction['replaces']>): void {
  const { original, kind } = replaces;
  tx.replacement = { of: original.id, kind };
  tx.nonce = original.nonce;
  tx.replacedTxHash = original.versions[original.versions.length - 1]?.hash;
  original.replacedBy = [...(original.replacedBy ?? []), tx.id];
}

const bump = (wei: string) => (BigInt(wei) * BUMP_PERCENT + 99n) / 100n;
const larger = (a: bigint, b: bigint) => (a > b ? a : b);

/**
 * The fees a replacement is signed with: those of its request (fee level or custom fees, as for any create), raised
 * to at least 10% above the last sent version of the transaction it replaces and of any replacement of it made
 * before (the pool holds the highest); a drop also to at least the network's current base fee plus its tip.
 */
export async function replacementFees(
  tx: TransactionRecord,
  fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
  find: (id: string) => TransactionRecord | undefined,
  rpc: EvmRpc,
): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
  if (!tx.replacement) return fees;
  const original = find(tx.replacement.of);
  let { maxFeePerGas: max, maxPriorityFeePerGas: tip } = fees;
  const rivals = original ? [original, ...(original.replacedBy ?? []).map(find)] : [];
  for (const other of rivals) {
    const sent = other && other !== tx ? other.versions[other.versions.length - 1] : undefined;
    if (!sent) continue;
    max = larger(max, bump(sent.maxFeePerGas));
    tip = larger(tip, bump(sent.maxPriorityFeePerGas));
  }
  if (tx.replacement.kind === 'drop') {
    tip = larger(tip, await rpc.priorityFee());
    max = larger(max, (await rpc.baseFee()) + tip);
  }
  return { maxFeePerGas: larger(max, tip), maxPriorityFeePerGas: tip };
}

/**
 * The body of a drop (DropTransactionRequest: `feeLevel`, `gasPrice` "in gwei"; its `txId` is the path's). Without
 * either, the fee level is HIGH, as the console's replace-by-fee dialog pre-selects "the fast fee".
 */
export function parseDrop(body: unknown): { feeLevel: string; gasPrice?: bigint } {
  const b = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  if (b.feeLevel !== undefined && !FEE_LEVELS.has(b.feeLevel as string)) {
    throw ApiErrors.badTransaction('feeLevel must be LOW, MEDIUM or HIGH');
  }
  let gasPrice: bigint | undefined;
  if (b.gasPrice !== undefined) {
    const text = typeof b.gasPrice === 'number' ? String(b.gasPrice) : b.gasPrice;
    if (typeof text !== 'string' || !/^\d{1,12}(\.\d{1,9})?$/.test(text)) {
      throw ApiErrors.badTransaction('gasPrice must be a non-negative amount of gwei, such as "1.5"');
    }
    gasPrice = parseGwei(text);
  }
  return { feeLevel: (b.feeLevel as string | undefined) ?? 'HIGH', gasPrice };
}

/** The replacement of a drop: a TRANSFER of 0 from the source vault account to its own address, at `original`'s nonce. */
export function dropTransaction(
  original: TransactionRecord,
  ownAddress: Hex,
  request: { feeLevel: string; gasPrice?: bigint },
): NewTransaction {
  return {
    operation: 'TRANSFER',
    assetId: original.assetId,
    vaultId: original.vaultId,
    destinationAddress: ownAddress,
    data: '0x',
    value: 0n,
    note: `Drop of transaction ${original.id}`,
    maxFeePerGas: request.gasPrice,
    maxPriorityFeePerGas: request.gasPrice,
    feeLevel: request.feeLevel,
    replaces: { original, kind: 'drop' },
  };
}

/**
 * The transaction a create's `replaceTxByHash` names: one of the same source vault account and asset with a sent
 * version of that hash, broadcast and not mined. Refused (400) otherwise.
 */
export function findReplaced(
  transactions: readonly TransactionRecord[],
  vaultId: string,
  assetId: string,
  hash: unknown,
): TransactionRecord {
  if (typeof hash !== 'string' || !isHex(hash) || hash.length !== 66) {
    throw ApiErrors.badTransaction('replaceTxByHash must be a 0x-prefixed 32-byte transaction hash');
  }
  const wanted = hash.toLowerCase();
  const original = transactions.find(
    (t) => t.vaultId === vaultId && t.assetId === assetId && t.versions.some((v) => v.hash.toLowerCase() === wanted),
  );
  if (!original) {
    throw ApiErrors.badTransaction(`No ${assetId} transaction of vault account ${vaultId} has hash ${hash}`);
  }
  const why = notReplaceable(original);
  if (why) throw ApiErrors.badTransaction(`Transaction ${original.id} with hash ${hash} cannot be replaced ${why}`);
  return original;
}
