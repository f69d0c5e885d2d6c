import type { AbiEvent, Address, Log, PublicClient } from 'viem';

/** One block range fully read: every matching log of blocks `fromBlock`..`toBlock`, decoded. */
export interface LogChunk {
  fromBlock: bigint;
  toBlock: bigint;
  logs: Log<bigint, number, false, AbiEvent, true>[];
}

/** True when the RPC could not be reached at all (as opposed to refusing the request): splitting cannot help. */
export function isConnectionFailure(error: unknown): boolean {
  for (let e = error as { name?: string; status?: number; cause?: unknown } | undefined; e; e = e.cause as never) {
    if (e.name === 'HttpRequestError' && e.status === undefined) return true;
    if (e.name === 'NetworkNotConfiguredError') return true;
  }
  return false;
}

/**
 * Reads the logs of one event of one contract over `fromBlock`..`toBlock` with eth_getLogs, in ranges of at most
 * `maxRange` blocks. When the provider refuses a range (too many results, range too wide, timeout), the range is
 * halved and asked again; after a success it grows back. Yields the ranges in order, each complete.
 */
export async function* readLogRanges(
  client: PublicClient,
  options: { address: Address; event: AbiEvent; fromBlock: bigint; toBlock: bigint; maxRange: number },
): AsyncGenerator<LogChunk> {
  const max = BigInt(options.maxRange);
  let size = max;
  let from = options.fromBlock;
  while (from <= options.toBlock) {
    const to = from + size - 1n < options.toBlock ? from + size - 1n : options.toBlock;
    let logs: LogChunk['logs'];
    try {
      logs = (await client.getLogs({
        address: options.address,
        event: options.event,
        fromBlock: from,
        toBlock: to,
        strict: true,
      })) as LogChunk['logs'];
    } catch (error) {
      if (to === from || isConnectionFailure(error)) throw error;
      size = (to - from + 1n) / 2n;
      continue;
    }
    yield { fromBlock: from, toBlock: to, logs };
    from = to + 1n;
    if (size < max) size = size * 2n < max ? size * 2n : max;
  }
}
