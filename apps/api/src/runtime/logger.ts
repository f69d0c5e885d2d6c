import type { FastifyServerOptions } from 'fastify';

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

/** pino options for the API: structured JSON, request ids, and never a credential. */
export function loggerOptions(level: string): FastifyServerOptions['logger'] {
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
