import { captureLogs as captureLogsOf } from '@mountain/testkit/logCapture.ts';
import type { FastifyServerOptions } from 'fastify';
import { loggerOptions } from '#api/runtime/logger.ts';

/** The API's real logger configuration (`loggerOptions`) at `level`, writing into memory: see the test kit's. */
export function captureLogs(level = 'info') {
  const logs = captureLogsOf(loggerOptions(level) as object);
  return { ...logs, logger: logs.logger as FastifyServerOptions['logger'] };
}
