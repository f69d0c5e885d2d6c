import { isConnectionLoss } from '#api/db/db.ts';

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
    log(`database connection lost while storing a job's outcome (${describe(reason)}); the sweep re-queues its work`);
  };
  process.on('unhandledRejection', handler);
  return () => process.off('unhandledRejection', handler);
}

function describe(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown };
  return [e.code, typeof e.message === 'string' ? e.message.split('\n')[0] : undefined].filter(Boolean).join(': ');
}
