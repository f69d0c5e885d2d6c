/**
 * Runs the functions given to it with at most `limit` in flight; the others wait their turn in order. For calls of
 * one kind made from many places at once (one wallet's signatures asked of its key service).
 */
export function concurrencyLimit(limit: number): <T>(run: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (run) => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else active++;
    try {
      return await run();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}
