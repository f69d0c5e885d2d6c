/** The eth_getLogs caps of the providers the lab imitates (see providerProxy.ts), and what they let through. */

export type GetLogsStyle = 'alchemy' | 'infura' | 'quicknode';

export interface GetLogsCaps {
  style: GetLogsStyle;
  maxBlockRange?: number;
  maxResults?: number;
}

/** Each provider's caps when not given: Alchemy 2,000 blocks / 10,000 logs, Infura 10,000 / 10,000, QuickNode 10,000 blocks. */
export const DEFAULT_CAPS = {
  alchemy: { maxBlockRange: 2_000, maxResults: 10_000 },
  infura: { maxBlockRange: 10_000, maxResults: 10_000 },
  quicknode: { maxBlockRange: 10_000, maxResults: undefined },
} as const;

/**
 * Whether a provider with `caps` answers a range of `blocks` blocks holding `logs` logs: Alchemy refuses a request
 * over both of its caps, Infura over either, QuickNode over its range cap.
 */
export function acceptsGetLogs(caps: GetLogsCaps, blocks: number, logs: number): boolean {
  const maxBlockRange = caps.maxBlockRange ?? DEFAULT_CAPS[caps.style].maxBlockRange;
  const maxResults = caps.maxResults ?? DEFAULT_CAPS[caps.style].maxResults ?? Number.POSITIVE_INFINITY;
  if (caps.style === 'alchemy') return blocks <= maxBlockRange || logs <= maxResults;
  return blocks <= maxBlockRange && logs <= maxResults;
}

/**
 * The fewest eth_getLogs requests that cover `from`..`to` through a provider with `caps`, each range at most
 * `maxRange` blocks (the client's own cap), given the block of every matching log: from each start, the widest
 * range the provider answers (widest first is optimal, since a range that is answered stays answered when shortened).
 */
export function fewestGetLogs(
  caps: GetLogsCaps,
  options: { from: number; to: number; maxRange: number; logBlocks: readonly number[] },
): number {
  const blocks = [...options.logBlocks].sort((a, b) => a - b);
  const logsIn = (a: number, b: number) => upperBound(blocks, b) - upperBound(blocks, a - 1);
  let requests = 0;
  for (let start = options.from; start <= options.to; requests++) {
    let end = Math.min(options.to, start + options.maxRange - 1);
    while (end > start && !acceptsGetLogs(caps, end - start + 1, logsIn(start, end))) end--;
    start = end + 1;
  }
  return requests;
}

/** How many of the sorted `values` are ≤ `x`. */
function upperBound(values: readonly number[], x: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((values[mid] as number) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
