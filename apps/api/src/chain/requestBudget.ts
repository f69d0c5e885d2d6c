import { setTimeout as sleep } from 'node:timers/promises';

type FetchFn = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** How far ahead of the even pace requests may go at once, in milliseconds' worth of the rate. */
const BURST_MS = 200;

/**
 * A `fetchFn` that keeps the JSON-RPC calls sent to one network within `callsPerSecond` (RPC_MAX_RPS_<id>): hosted
 * providers count every call of a batch against their rate, and refuse past it with HTTP 429. Each request waits
 * its turn, in order, paced evenly (a generic cell rate: `n` calls take `n / callsPerSecond` seconds of the
 * budget, with up to BURST_MS of it at once), so that refusals stay rare; the ones that still come are handled
 * by withRateLimits inside it. A request whose caller gives up (its signal aborts) while it waits is not sent.
 */
export function withRequestBudget(fetchFn: FetchFn, callsPerSecond: number): FetchFn {
  const interval = 1000 / callsPerSecond;
  // The theoretical time at which the budget is spent up to now (milliseconds since the epoch).
  let spentUntil = 0;
  return async (input, init = {}) => {
    const calls = typeof init.body === 'string' ? countCalls(init.body) : 1;
    const now = Date.now();
    const wait = Math.max(0, spentUntil - BURST_MS - now);
    spentUntil = Math.max(spentUntil, now) + calls * interval;
    if (wait > 0) await sleep(wait, undefined, init.signal ? { signal: init.signal } : {});
    return fetchFn(input, init);
  };
}

/** The calls of a JSON-RPC body: one per `"method":` key (a string's own quotes are escaped, so none match). */
function countCalls(body: string): number {
  let n = 0;
  for (let at = body.indexOf('"method":'); at >= 0; at = body.indexOf('"method":', at + 9)) n++;
  return Math.max(1, n);
}
