import type { FastifyServerOptions } from 'fastify';

/** pino options for the API: structured JSON, request ids, and never a credential. */
export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'headers.authorization', 'headers["x-api-key"]'],
      censor: '[redacted]',
    },
  };
}
