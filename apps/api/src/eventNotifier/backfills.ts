/**
 * Scans of this process that have more than one block range to read (a backfill). A worker process runs scans and
 * deliveries on one event loop; while a backfill runs, that process's deliveries send at most
 * `BACKFILL_DELIVERY_CONCURRENCY` webhooks at a time, so the records are stored first and the deliveries catch up
 * at full concurrency when it ends. Deliveries in other worker processes are not held back, and the scans of live
 * subscriptions (one range behind the head) do not count.
 */
let running = 0;

/** Webhooks in flight at once from one subscription's deliveries in this process while a backfill runs. */
export const BACKFILL_DELIVERY_CONCURRENCY = 2;

/** Runs `fn` as a backfill of this process. */
export async function asBackfill<T>(fn: () => Promise<T>): Promise<T> {
  running++;
  try {
    return await fn();
  } finally {
    running--;
  }
}

export function backfillRunning(): boolean {
  return running > 0;
}
