import { type Address, type Hex, keccak256, parseTransaction, recoverTransactionAddress } from 'viem';
import { rpcCall } from '../jsonRpc.ts';
import { LabError, rejectUnknownOptions } from './errors.ts';
import { type PoolContent, type PoolEntry, readPool } from './pool.ts';
import { type Refusal, TXPOOL_REFUSED } from './providerMessages.ts';

/** geth's pool limits (core/txpool/legacypool DefaultConfig). */
export interface TxpoolFrontOptions {
  /** Executable transactions per sender (geth `AccountSlots`). Default 16. */
  accountSlots?: number;
  /** Gapped (future-nonce) transactions per sender (geth `AccountQueue`). Default 64. */
  accountQueue?: number;
  /** A same-nonce replacement must raise both fee fields by this many percent (geth `PriceBump`). Default 10. */
  priceBumpPercent?: number;
}

export type TxpoolRefusalKind = 'alreadyKnown' | 'nonceTooLow' | 'feeCapTooLow' | 'replacementUnderpriced' | 'poolFull';

export function resolveTxpoolOptions(options: TxpoolFrontOptions | true): Required<TxpoolFrontOptions> {
  const given = options === true ? {} : options;
  rejectUnknownOptions('txpool', given, ['accountSlots', 'accountQueue', 'priceBumpPercent']);
  const resolved = {
    accountSlots: given.accountSlots ?? 16,
    accountQueue: given.accountQueue ?? 64,
    priceBumpPercent: given.priceBumpPercent ?? 10,
  };
  for (const [key, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value < 0) throw new LabError(`txpool.${key} must be an integer ≥ 0`);
  }
  return resolved;
}

/**
 * The senders of transactions judged lately, by their signed bytes: a platform broadcasts the same bytes to each of
 * its endpoints, and the proxies of one lab recover each sender once (the curve's work is most of a judgement's).
 */
const senders = new Map<Hex, Promise<Address>>();
const SENDERS_KEPT = 20_000;

function senderOf(raw: Hex): Promise<Address> {
  let sender = senders.get(raw);
  if (!sender) {
    if (senders.size >= SENDERS_KEPT) senders.clear();
    sender = recoverTransactionAddress({ serializedTransaction: raw as never });
    senders.set(raw, sender);
    sender.catch(() => senders.delete(raw));
  }
  return sender;
}

/**
 * Decides, as geth's pool would, whether `raw` is accepted: against the node's own pool (txpool_content), its mined
 * nonce and its pending block's base fee. anvil alone is more lenient: it takes any higher fee as a replacement,
 * has no per-sender limit, and words its refusals its own way.
 */
export async function judgeRawTransaction(
  node: string,
  raw: Hex,
  limits: Required<TxpoolFrontOptions>,
  /** Accepted earlier in the same batch: not at the node yet, but in the pool by the time this one would be. */
  alsoPooled: readonly PoolEntry[] = [],
  /** The node's pool (txpool_content): a caller judging many transactions at once may read it once for them. */
  pooled: () => Promise<PoolContent> = () => readPool(node),
): Promise<{ refused: { kind: TxpoolRefusalKind; refusal: Refusal } } | { accepted: PoolEntry } | undefined> {
  let tx: ReturnType<typeof parseTransaction>;
  let from: Address;
  try {
    tx = parseTransaction(raw);
    from = await senderOf(raw);
  } catch {
    return undefined; // not a transaction the front can read: the node answers it
  }
  const hash = keccak256(raw);
  const nonce = tx.nonce ?? 0;
  const feeCap = tx.maxFeePerGas ?? tx.gasPrice ?? 0n;
  const tip = tx.maxPriorityFeePerGas ?? tx.gasPrice ?? 0n;
  const [pool, minedNonce, pendingBlock] = await Promise.all([
    pooled(),
    rpcCall<Hex>(node, 'eth_getTransactionCount', [from, 'latest']).then(Number),
    rpcCall<{ baseFeePerGas?: Hex } | null>(node, 'eth_getBlockByNumber', ['pending', false]),
  ]);
  const held = new Map<number, PoolEntry>();
  for (const entry of [...(pool.pending[from] ?? []), ...(pool.queued[from] ?? []), ...alsoPooled]) {
    if (entry.from === from) held.set(entry.nonce, entry);
  }
  // Executable: the run of nonces from the mined one on; the rest wait behind a gap.
  let executableCount = 0;
  while (held.has(minedNonce + executableCount)) executableCount++;
  const gappedCount = [...held.keys()].filter((n) => n >= minedNonce).length - executableCount;
  const refused = (kind: TxpoolRefusalKind, refusal: Refusal) => ({ refused: { kind, refusal } });

  if ([...held.values()].some((entry) => entry.hash === hash))
    return refused('alreadyKnown', TXPOOL_REFUSED.alreadyKnown());
  if (nonce < minedNonce) return refused('nonceTooLow', TXPOOL_REFUSED.nonceTooLow(minedNonce, nonce));
  const baseFee = BigInt(pendingBlock?.baseFeePerGas ?? 0);
  if (feeCap < baseFee) return refused('feeCapTooLow', TXPOOL_REFUSED.feeCapTooLow(from, feeCap, baseFee));
  const accepted = {
    accepted: { hash, from, nonce, to: tx.to ?? null, maxFeePerGas: feeCap, maxPriorityFeePerGas: tip },
  };
  const existing = held.get(nonce);
  if (existing) {
    // core/txpool/legacypool/list.go Add: both fields strictly higher, and each at least old × (100 + bump) / 100.
    const bump = BigInt(100 + limits.priceBumpPercent);
    const enough =
      feeCap > existing.maxFeePerGas &&
      tip > existing.maxPriorityFeePerGas &&
      feeCap >= (existing.maxFeePerGas * bump) / 100n &&
      tip >= (existing.maxPriorityFeePerGas * bump) / 100n;
    return enough ? accepted : refused('replacementUnderpriced', TXPOOL_REFUSED.replacementUnderpriced());
  }
  const executable = nonce === minedNonce + executableCount;
  if (executable ? executableCount >= limits.accountSlots : gappedCount >= limits.accountQueue) {
    return refused('poolFull', TXPOOL_REFUSED.poolFull());
  }
  return accepted;
}
