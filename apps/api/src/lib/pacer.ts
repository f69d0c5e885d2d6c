import { setTimeout as sleep } from 'node:timers/promises';

/** How far ahead of the even pace calls may go at once, in milliseconds' worth of the rate. */
const BURST_MS = 200;

/**
 * Keeps calls within `perSecond`, in order, paced evenly (a generic cell rate: `n` calls take `n / perSecond`
 * seconds of the budget, with up to BURST_MS of it at once). `take(cost)` waits for the caller's turn; a caller
 * whose signal aborts while it waits is not let through.
 */
export function createPacer(perSecond: number): (cost?: number, signal?: AbortSignal) => Promise<void> {
  const interval = 1000 / perSecond;
  // The theoretical time at which the budget is spent up to now (milliseconds since the epoch).
  let spentUntil = 0;
  return async (cost = 1, signal) => {
    const now = Date.now();
    const wait = Math.max(0, spentUntil - BURST_MS - now);
    spentUntil = Math.max(spentUntil, now) + cost * interval;
    if (wait > 0) await sleep(wait, undefined, signal ? { signal } : {});
  };
}
