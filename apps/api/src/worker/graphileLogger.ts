import { Logger as GraphileLogger } from 'graphile-worker';
import type { Logger } from '#api/runtime/logger.ts';

const LEVELS = { error: 'error', warning: 'warn', info: 'debug', debug: 'trace' } as const;

/**
 * graphile-worker's own lines (connections, its queue) through the worker's pino logger, a level lower than it
 * says for info and debug (it reports every job at info). Its report of each job's end is left out: the task list
 * logs it, with the job's project (jobs/taskList.ts). Errors after shutdown began (connections closing) are
 * expected and dropped.
 */
export function graphileLogger(log: Logger, signal: AbortSignal): GraphileLogger {
  return new GraphileLogger((scope) => (level, message, meta) => {
    if (meta?.failure || meta?.success || signal.aborted) return;
    const fields = {
      ...(scope.taskIdentifier ? { job: scope.taskIdentifier, jobId: scope.jobId ?? null } : {}),
      ...(scope.workerId ? { workerId: scope.workerId } : {}),
      ...(meta?.error ? { err: meta.error } : {}),
    };
    log[LEVELS[level as keyof typeof LEVELS] ?? 'warn'](fields, message);
  });
}
