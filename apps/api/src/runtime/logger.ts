import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/** pino options, and where to write (stdout when absent), as Fastify takes them. */
export type LogOptions = LoggerOptions & { stream?: DestinationStream };

// scheme://[userinfo@]host[:port][/path][?query][#fragment], up to a quote, backslash (a JSON escape) or space.
const URL_PATTERN = /\b((?:https?|wss?):\/\/)([^\s/"'\\@]*@)?([^\s/"'\\?#]+)([/?#][^\s"'\\]*)?/g;

/**
 * Keeps only the scheme, host and port of every URL in `text`. RPC URLs carry provider keys in their path,
 * query or userinfo (`https://eth-mainnet.example/v2/<key>`), and client errors quote them in their messages.
 */
export function redactUrls(text: string): string {
  return text.replace(URL_PATTERN, (_, scheme: string, userinfo: string | undefined, host: string, rest?: string) => {
    const tail = rest && rest !== '/' ? '/[redacted]' : (rest ?? '');
    return `${scheme}${userinfo ? '[redacted]@' : ''}${host}${tail}`;
  });
}

/** pino options of every process (the API's requests, the worker's jobs): JSON lines, and never a credential. */
export function loggerOptions(level: string): LogOptions {
  return {
    level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'headers.authorization', 'headers["x-api-key"]'],
      censor: '[redacted]',
    },
    // Error messages and stacks (with their causes) are free text: URLs in them are cut down just before writing.
    hooks: { streamWrite: redactUrls },
  };
}

/**
 * A pino logger with `options` (the same the API gives Fastify), for what logs outside a request: the job worker.
 * Its lines have the API's shape (`level`, `time`, `pid`, `hostname`, `msg`, `err`) and its redactions.
 */
export function createLogger(options: LogOptions = loggerOptions('info')): Logger {
  const { stream, ...rest } = options;
  return stream ? pino(rest, stream) : pino(rest);
}

let stderrLogger: Logger | undefined;

/** Warnings and errors to stderr: where a worker logs when it was given no logger (tests, scripts). */
export function defaultWorkerLogger(): Logger {
  stderrLogger ??= createLogger({ ...loggerOptions('warn'), stream: pino.destination(2) });
  return stderrLogger;
}
