import { Writable } from 'node:stream';

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
 * A pino configuration (`loggerOptions`, a real one) writing into memory instead of stdout, and what the process
 * prints with `console` while `captureConsole()` holds it (a job worker may report its failures there), instead of
 * printing it.
 */
export function captureLogs<Options extends object>(loggerOptions: Options) {
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
    logger: { ...loggerOptions, stream },
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
