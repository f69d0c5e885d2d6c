import { Writable } from 'node:stream';
import type { FastifyServerOptions } from 'fastify';
import { loggerOptions } from '#api/runtime/logger.ts';

export interface LogEntry {
  level: number;
  msg?: string;
  reqId?: string;
  req?: { method: string; url: string };
  res?: { statusCode: number };
  err?: { type: string; message: string; stack: string };
  [field: string]: unknown;
}

/**
 * The API's real logger configuration (`loggerOptions`) at `level`, writing into memory instead of stdout, and
 * what the process prints with `console` while `captureConsole()` holds it (the job worker reports its failures
 * there), instead of printing it.
 */
export function captureLogs(level = 'info') {
  const lines: string[] = [];
  const consoleLines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).trim().split('\n'));
      done();
    },
  });
  const saved = { error: console.error, warn: console.warn, log: console.log, info: console.info };
  const record = (...args: unknown[]) => {
    consoleLines.push(args.map((a) => (a instanceof Error ? `${a.stack}` : String(a))).join(' '));
  };
  return {
    logger: { ...(loggerOptions(level) as object), stream } as FastifyServerOptions['logger'],
    lines,
    consoleLines,
    /** Every pino line, parsed. */
    entries: () => lines.map((line) => JSON.parse(line) as LogEntry),
    /** Everything logged or printed, as one text to search. */
    text: () => [...lines, ...consoleLines].join('\n'),
    captureConsole() {
      console.error = record;
      console.warn = record;
      console.log = record;
      console.info = record;
    },
    restoreConsole() {
      Object.assign(console, saved);
    },
  };
}
