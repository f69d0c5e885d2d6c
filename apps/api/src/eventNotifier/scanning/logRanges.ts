import { type AbiEvent, type Address, type Hex, numberToHex, type PublicClient, toEventSelector } from 'viem';
import { isRateLimited } from '#api/chain/chainErrors.ts';
import { createLogDecoder, type LogArgs } from '#api/eventNotifier/abiEvent.ts';
import { causes } from '#api/lib/causes.ts';

/** One block range fully read: every matching log of blocks `fromBlock`..`toBlock`, decoded. */
export interface LogChunk {
  fromBlock: bigint;
  toBlock: bigint;
  /** The hash of block `toBlock`, read before its logs, for ranges ending above `checkpointAbove`. */
  toBlockHash?: Hex;
  logs: DecodedLog[];
}

/** One matching log, decoded. `blockTimestamp` is there when the provider includes it in eth_getLogs answers. */
export interface DecodedLog {
  blockNumber: bigint;
  blockHash: Hex;
  blockTimestamp: bigint | undefined;
  transactionHash: Hex;
  transactionIndex: number;
  logIndex: number;
  args: LogArgs;
}

interface RpcLog {
  topics: Hex[];
  data: Hex;
  blockNumber: Hex;
  blockHash: Hex;
  blockTimestamp?: Hex | null;
  transactionHash: Hex;
  transactionIndex: Hex;
  logIndex: Hex;
  removed?: boolean;
}

/** True when the RPC could not be reached at all (as opposed to refusing the request): splitting cannot help. */
export function isConnectionFailure(error: unknown): boolean {
  for (const e of causes(error)) {
    if (e.name === 'HttpRequestError' && e.status === undefined) return true;
    if (e.name === 'NetworkNotConfiguredError') return true;
  }
  return false;
}

/**
 * Reads the logs of one event of one contract over `fromBlock`..`toBlock` with eth_getLogs, in ranges of at most
 * `maxRange` blocks. When the provider refuses a range (too many results, range too wide, timeout), the range is
 * halved and asked again; after a success it grows back. Yields the ranges in order, each complete. Logs are
 * decoded with one decoder built for the event (see createLogDecoder).
 *
 * A range ending above `checkpointAbove` (the finalized block) comes with the hash of its last block, read just
 * before its logs: a reorg after that read changes the hash, which the next scan sees. A node that has no such
 * block yet (a load-balanced node behind the one that answered the head) ends the reading there, uncommitted.
 */
export async function* readLogRanges(
  client: PublicClient,
  options: {
    address: Address;
    event: AbiEvent;
    fromBlock: bigint;
    toBlock: bigint;
    maxRange: number;
    checkpointAbove?: bigint;
  },
): AsyncGenerator<LogChunk> {
  const max = BigInt(options.maxRange);
  const decode = createLogDecoder(options.event);
  const topics = [toEventSelector(options.event)];
  let size = max;
  let from = options.fromBlock;
  while (from <= options.toBlock) {
    const to = from + size - 1n < options.toBlock ? from + size - 1n : options.toBlock;
    let logs: LogChunk['logs'];
    const checkpoint = options.checkpointAbove !== undefined && to > options.checkpointAbove;
    let toBlockHash: Hex | undefined;
    try {
      // Above the finalized block, the last block's header and the logs are asked in one JSON-RPC batch (one
      // request: one node behind a load balancer), the header first: a node that has not imported that block yet
      // would answer the logs of the blocks it has only, as if complete.
      const [header, raw] = (await Promise.all([
        checkpoint
          ? client.request({ method: 'eth_getBlockByNumber', params: [numberToHex(to), false] } as never)
          : undefined,
        client.request({
          method: 'eth_getLogs',
          params: [{ address: options.address, topics, fromBlock: numberToHex(from), toBlock: numberToHex(to) }],
        } as never),
      ])) as [{ hash: Hex } | null | undefined, RpcLog[]];
      if (checkpoint) {
        if (!header) return;
        toBlockHash = header.hash;
      }
      logs = [];
      for (const log of raw) {
        if (log.removed) continue;
        const args = decode(log.topics, log.data);
        if (args === undefined) continue; // another event with the same selector but a different layout
        logs.push({
          blockNumber: BigInt(log.blockNumber),
          blockHash: log.blockHash,
          blockTimestamp: log.blockTimestamp ? BigInt(log.blockTimestamp) : undefined,
          transactionHash: log.transactionHash,
          transactionIndex: Number(log.transactionIndex),
          logIndex: Number(log.logIndex),
          args,
        });
      }
    } catch (error) {
      // Unreachable or past its rate limit: a smaller range would fare no better.
      if (to === from || isConnectionFailure(error) || isRateLimited(error)) throw error;
      size = (to - from + 1n) / 2n;
      continue;
    }
    yield { fromBlock: from, toBlock: to, ...(toBlockHash ? { toBlockHash } : {}), logs };
    from = to + 1n;
    if (size < max) size = size * 2n < max ? size * 2n : max;
  }
}
