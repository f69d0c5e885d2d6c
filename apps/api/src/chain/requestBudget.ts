import { createPacer } from '#api/lib/pacer.ts';

type FetchFn = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * A `fetchFn` that keeps the JSON-RPC calls sent to one network within `callsPerSecond` (RPC_MAX_RPS_<id>): hosted
 * providers count every call of a batch against their rate, and refuse past it with HTTP 429. Each request waits
 * its turn, in order, paced evenly (see createPacer), so that refusals stay rare; the ones that still come are
 * handled by withRateLimits inside it. A request whose caller gives up (its signal aborts) while it waits is not
 * sent.
 */
export function withRequestBudget(fetchFn: FetchFn, callsPerSecond: number): FetchFn {
  const take = createPacer(callsPerSecond);
  return async (input, init = {}) => {
    await take(typeof init.body === 'string' ? countCalls(init.body) : 1, init.signal ?? undefined);
    return fetchFn(input, init);
  };
}

/** The calls of a JSON-RPC body: one per `"method":` key (a string's own quotes are escaped, so none match). */
function countCalls(body: string): number {
  let n = 0;
  for (let at = body.indexOf('"method":'); at >= 0; at = body.indexOf('"method":', at + 9)) n++;
  return Math.max(1, n);
}
