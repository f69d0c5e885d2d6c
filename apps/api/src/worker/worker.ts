import { Logger, type Runner, run, type TaskList } from 'graphile-worker';
import type pg from 'pg';
import { redactUrls } from '#api/runtime/logger.ts';

export interface Worker {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The background job runner (graphile-worker on the platform's Postgres). Any number of worker processes may
 * run against one database; each job is taken by one of them.
 */
export function createWorker(options: {
  pool: pg.Pool;
  tasks: TaskList;
  concurrency?: number;
  /** Aborted when the process shuts down: connection errors are expected from then on and not logged. */
  signal?: AbortSignal;
}): Worker {
  let runner: Runner | undefined;
  return {
    async start() {
      runner = await run({
        // Our own pool: its error handler keeps a database restart from crashing the process.
        pgPool: options.pool,
        concurrency: options.concurrency ?? 10,
        noHandleSignals: true,
        pollInterval: 1_000,
        taskList: options.tasks,
        logger: quietLogger(options.signal),
      });
    },
    async stop() {
      await runner?.stop();
      runner = undefined;
    },
  };
}

// graphile-worker logs every job at info level; the platform logs what matters itself. A failed job's message
// quotes its error, and RPC client errors quote the endpoint's URL (with any provider key): see redactUrls.
function quietLogger(signal: AbortSignal | undefined): Logger {
  return new Logger(() => (level: string, message: string) => {
    if ((level === 'error' || level === 'warning') && !signal?.aborted)
      console.error(`[worker] ${redactUrls(message)}`);
  });
}
