import type { Hex } from 'viem';
import { type JsonRpcCall, rpcCall, toQuantity } from '../jsonRpc.ts';
import type { Interception } from '../rpcProxy.ts';

/** Where each state-reading method takes its block tag. */
const TAG_AT: Record<string, number> = {
  eth_getBalance: 1,
  eth_getTransactionCount: 1,
  eth_getCode: 1,
  eth_call: 1,
  eth_getStorageAt: 2,
};

const above = (value: { blockNumber?: Hex | null; number?: Hex | null } | null | undefined, seen: bigint) => {
  const n = value?.blockNumber ?? value?.number;
  return n !== undefined && n !== null && BigInt(n) > seen;
};

/**
 * How a node whose head is `seen` (behind the real one) answers `call`: its head for `latest`, nothing (null) for
 * blocks, receipts and transactions it has not imported yet, and no logs from them. Calls it would answer as the
 * up-to-date node does are left alone (undefined).
 */
export async function lagInterception(
  node: string,
  call: JsonRpcCall,
  seen: bigint,
): Promise<Interception | undefined> {
  const params = call.params ?? [];
  const at = toQuantity(seen);
  switch (call.method) {
    case 'eth_blockNumber':
      return { answer: { id: call.id, result: at } };
    case 'eth_getBlockByNumber': {
      const tag = params[0] as string;
      if (tag === 'latest' || tag === 'pending') return { forward: { ...call, params: [at, ...params.slice(1)] } };
      if (tag.startsWith('0x')) return BigInt(tag) > seen ? { answer: { id: call.id, result: null } } : undefined;
      // safe / finalized: never past the node's own head
      return {
        async rewrite(answer) {
          if (!above(answer.result as { number?: Hex }, seen)) return answer;
          return { ...answer, result: await rpcCall(node, 'eth_getBlockByNumber', [at, ...params.slice(1)]) };
        },
      };
    }
    case 'eth_getBlockByHash':
    case 'eth_getTransactionReceipt':
    case 'eth_getTransactionByHash':
      return {
        rewrite: (answer) => (above(answer.result as { number?: Hex }, seen) ? { ...answer, result: null } : answer),
      };
    case 'eth_getLogs': {
      const filter = (params[0] ?? {}) as { fromBlock?: string; toBlock?: string; blockHash?: string };
      const dropUnseen = {
        rewrite: (answer: { result?: unknown }) =>
          Array.isArray(answer.result)
            ? { ...answer, result: (answer.result as { blockNumber: Hex }[]).filter((log) => !above(log, seen)) }
            : answer,
      };
      if (filter.blockHash) return dropUnseen;
      const bound = (tag: string | undefined) =>
        tag === undefined || tag === 'latest' || tag === 'pending' || (tag.startsWith('0x') && BigInt(tag) > seen)
          ? at
          : tag;
      if (filter.fromBlock?.startsWith('0x') && BigInt(filter.fromBlock) > seen)
        return { answer: { id: call.id, result: [] } };
      return {
        forward: {
          ...call,
          params: [{ ...filter, fromBlock: filter.fromBlock ?? at, toBlock: bound(filter.toBlock) }],
        },
        ...dropUnseen,
      };
    }
    default: {
      const index = TAG_AT[call.method];
      if (index === undefined) return undefined;
      const tag = params[index];
      if (tag !== undefined && tag !== 'latest') return undefined;
      const rewritten = [...params];
      rewritten[index] = at;
      return { forward: { ...call, params: rewritten } };
    }
  }
}
