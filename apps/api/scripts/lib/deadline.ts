/**
 * Bounds a run: if it is still going after `ms`, says that `name` did not finish, stops what it started (`cleanUp`,
 * given 30 s at most) and exits 1. The timer does not keep the process alive.
 */
export function hardDeadline(name: string, ms: number, cleanUp: () => Promise<unknown>): void {
  setTimeout(async () => {
    console.error(`\n✖ ${name} did not finish within ${Math.round(ms / 60_000)} minutes: stopping`);
    await Promise.race([cleanUp(), new Promise((resolve) => setTimeout(resolve, 30_000))]);
    process.exit(1);
  }, ms).unref();
}
