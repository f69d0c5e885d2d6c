import { formatGwei, type PublicClient } from 'viem';

/** What one unit of gas costs on a network now: the latest block's base fee and the tip the node suggests. */
export interface NetworkFees {
  baseFee: bigint;
  tip: bigint;
}

/** EIP-1559 fee fields of a transaction. */
export interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** A network's fees are asked at most this often per client: the base fee moves once a block. */
const FEES_TTL_MS = 1_000;
const cached = new WeakMap<PublicClient, { at: number; fees: Promise<NetworkFees> }>();

/**
 * The network's current base fee and suggested tip, shared by every sender and monitor of the process for 1 s. A
 * caller pricing one transaction a user asked for now (a speed-up) passes `maxAgeMs` 0: a base fee read a second
 * ago may be a block old, and a replacement priced under the next block's base fee waits in the pool.
 */
export function networkFees(client: PublicClient, maxAgeMs = FEES_TTL_MS): Promise<NetworkFees> {
  const known = cached.get(client);
  if (known && Date.now() - known.at < maxAgeMs) return known.fees;
  const fees = Promise.all([client.getBlock({ blockTag: 'latest' }), client.estimateMaxPriorityFeePerGas()]).then(
    ([block, tip]) => ({ baseFee: block.baseFeePerGas ?? 0n, tip }),
  );
  cached.set(client, { at: Date.now(), fees });
  fees.catch(() => cached.delete(client));
  return fees;
}

/**
 * EIP-1559 fees with room for the base fee to rise: a cap of twice the base fee plus the tip stays valid through
 * six full blocks in a row (+12.5% each), so a burst of transactions does not strand its own tail below the base
 * fee. The cap is only a ceiling: a mined transaction pays the base fee of its block plus the tip. Never above
 * `maxFeePerGas` (the network's MAX_FEE_PER_GAS_GWEI_<id>).
 */
export function feesWithHeadroom({ baseFee, tip }: NetworkFees, cap: bigint): Fees {
  const maxFeePerGas = min(baseFee * 2n + tip, cap);
  return { maxFeePerGas, maxPriorityFeePerGas: min(tip, maxFeePerGas) };
}

/**
 * Fees for a new version of a transaction on the same nonce: both fields raised by at least `bumpPercent`, and
 * to the network's current fees with headroom if higher; never above the cap. undefined when the cap leaves no
 * valid replacement (nodes refuse one that does not raise both fields by `REPLACEMENT_BUMP_PERCENT`).
 */
export function replacementFees(current: Fees, network: NetworkFees, cap: bigint, bumpPercent: number) {
  const wanted = feesWithHeadroom(network, cap);
  const maxPriorityFeePerGas = min(
    max(bump(current.maxPriorityFeePerGas, bumpPercent), wanted.maxPriorityFeePerGas),
    cap,
  );
  const maxFeePerGas = min(
    max(max(bump(current.maxFeePerGas, bumpPercent), wanted.maxFeePerGas), maxPriorityFeePerGas),
    cap,
  );
  const valid =
    maxFeePerGas >= bump(current.maxFeePerGas, REPLACEMENT_BUMP_PERCENT) &&
    maxPriorityFeePerGas >= bump(current.maxPriorityFeePerGas, REPLACEMENT_BUMP_PERCENT);
  return valid ? { maxFeePerGas, maxPriorityFeePerGas } : undefined;
}

/** geth's (and most nodes') `PriceBump`: a replacement raises both fee fields by at least this much. */
export const REPLACEMENT_BUMP_PERCENT = 10;

/** Why transactions wait rather than go out: the base fee is above the cap. */
export function cappedMessage(networkId: number, baseFee: bigint, cap: bigint): string {
  return `Waiting for the base fee to fall under the fee cap MAX_FEE_PER_GAS_GWEI_${networkId} = ${gwei(cap)} gwei (it was ${gwei(baseFee)} gwei when this transaction was held back)`;
}

const gwei = (wei: bigint) => {
  const text = formatGwei(wei);
  const [whole, fraction = ''] = text.split('.');
  return fraction ? `${whole}.${fraction.slice(0, 3).replace(/0+$/, '')}`.replace(/\.$/, '') : text;
};
const bump = (value: bigint, percent: number) => (value * BigInt(100 + percent) + 99n) / 100n;
const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);
