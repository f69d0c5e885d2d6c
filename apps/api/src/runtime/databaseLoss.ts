/**
 * graphile-worker records a job's success or failure without awaiting it; when the database is unreachable at
 * that moment (a restart, a failover), the rejection is unhandled and Node would end the whole worker process.
 * The job then stays locked in the queue, and the periodic sweep of every worker re-queues its work (scans,
 * deliveries, the senders and monitors of wallets nobody is working on). So a lost connection is logged and the
 * process keeps running; any other unhandled rejection still ends it, as Node does by default.
 * Returns a function that removes the handler.
 */
export function surviveDatabaseLoss(log: (message: string) => void): () => void {
  const handler = (reason: unknown) => {
    if (!isConnectionLoss(reason)) throw reason;
    log(
      `[worker] database connection lost while storing a job's outcome (${describe(reason)}); the sweep re-queues its work`,
    );
  };
  process.on('unhandledRejection', handler);
  return () => process.off('unhandledRejection', handler);
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND']);

/** A PostgreSQL connection that failed or was cut: network errors, shutdown (57P0x), connection class 08. */
export function isConnectionLoss(error: unknown): boolean {
  for (
    let e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 5;
    depth++
  ) {
    const code = typeof e.code === 'string' ? e.code : '';
    if (NETWORK_CODES.has(code) || /^57P0[1-3]$/.test(code) || /^08/.test(code)) return true;
    const message = typeof e.message === 'string' ? e.message : '';
    if (/Connection terminated|not queryable|the database system is (shutting down|starting up)/i.test(message))
      return true;
    e = e.cause as typeof e;
  }
  return false;
}

function describe(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown };
  return [e.code, typeof e.message === 'string' ? e.message.split('\n')[0] : undefined].filter(Boolean).join(': ');
}
