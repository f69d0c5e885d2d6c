import { type Address, getAddress, type Hex } from 'viem';
import { rpcCall } from '../jsonRpc.ts';

/** One transaction waiting in the node's pool. */
export interface PoolEntry {
  hash: Hex;
  from: Address;
  nonce: number;
  to: Address | null;
  /** EIP-1559 fields; for a legacy or EIP-2930 transaction both are its gas price, as geth compares them. */
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** The pool as geth's `txpool_content` shows it: executable (`pending`) and gapped (`queued`), per sender, by nonce. */
export interface PoolContent {
  pending: Record<Address, PoolEntry[]>;
  queued: Record<Address, PoolEntry[]>;
}

type RawEntry = {
  hash: Hex;
  from: Address;
  nonce: Hex;
  to: Address | null;
  gasPrice?: Hex;
  maxFeePerGas?: Hex;
  maxPriorityFeePerGas?: Hex;
};
type RawSection = Record<string, Record<string, RawEntry>>;

function section(raw: RawSection | undefined): Record<Address, PoolEntry[]> {
  const out: Record<Address, PoolEntry[]> = {};
  for (const [sender, byNonce] of Object.entries(raw ?? {})) {
    out[getAddress(sender)] = Object.values(byNonce)
      .map((tx) => {
        const cap = BigInt(tx.maxFeePerGas ?? tx.gasPrice ?? 0);
        return {
          hash: tx.hash,
          from: getAddress(tx.from),
          nonce: Number(tx.nonce),
          to: tx.to ? getAddress(tx.to) : null,
          maxFeePerGas: cap,
          maxPriorityFeePerGas: BigInt(tx.maxPriorityFeePerGas ?? tx.gasPrice ?? 0),
        };
      })
      .sort((a, b) => a.nonce - b.nonce);
  }
  return out;
}

/** Reads the node's pool (`txpool_content`, which anvil answers as geth does). */
export async function readPool(url: string): Promise<PoolContent> {
  const raw = await rpcCall<{ pending?: RawSection; queued?: RawSection }>(url, 'txpool_content');
  return { pending: section(raw.pending), queued: section(raw.queued) };
}
