import { captureLogs as captureLogsOf } from '@mountain/testkit/logCapture.ts';
import { type LogOptions, loggerOptions } from '#api/runtime/logger.ts';

/**
 * The platform's real logger configuration (`loggerOptions`) at `level`, writing into memory: see the test kit's.
 * Give `logger` to the app (`createHarness`) and to a worker (`createLogger(logs.logger)`): both write here.
 */
export function captureLogs(level = 'info') {
  const logs = captureLogsOf(loggerOptions(level) as object);
  return { ...logs, logger: logs.logger as LogOptions };
}
