import type { FastifyInstance } from 'fastify';
import { code, type Env, type VariableDefinition } from '#api/config/parse.ts';

export interface CorsSettings {
  /** `*` lets any origin call the API; otherwise only these origins (`https://app.example.com`). */
  readonly allowedOrigins: '*' | readonly string[];
}

export const DEFAULT_CORS: CorsSettings = Object.freeze({ allowedOrigins: '*' });

/** The CORS variable, as the configuration reference lists it. */
export const CORS_VARIABLES: readonly VariableDefinition[] = [
  {
    names: ['CORS_ALLOWED_ORIGINS'],
    default: code(DEFAULT_CORS.allowedOrigins as string),
    meaning:
      'Origins browsers may call the API from: `*`, or a comma-separated list such as ' +
      '`https://app.example.com,http://localhost:3000`.',
  },
];

/** CORS_ALLOWED_ORIGINS: `*` (the default) or a comma-separated list of origins such as https://app.example.com. */
export function parseCorsSettings(env: Env, problems: string[]): CorsSettings {
  const value = env.CORS_ALLOWED_ORIGINS?.trim();
  if (value === undefined || value === '' || value === '*') return DEFAULT_CORS;
  const origins = value.split(',').map((o) => o.trim());
  for (const origin of origins) {
    // An origin is scheme, host and port only, exactly as browsers send it in the Origin header.
    let valid = false;
    try {
      valid = /^https?:$/.test(new URL(origin).protocol) && new URL(origin).origin === origin;
    } catch {}
    if (!valid) problems.push(`CORS_ALLOWED_ORIGINS: "${origin}" is not an origin such as https://app.example.com`);
  }
  return Object.freeze({ allowedOrigins: Object.freeze(origins) });
}

/** Request headers a browser may send: the credentials, the JSON body, the project choice and tracing. */
export const CORS_ALLOW_HEADERS = 'X-API-Key, Authorization, Content-Type, X-Project-Id, Idempotency-Key, X-Request-Id';
/** Answer headers a browser script may read besides the safelisted ones. */
export const CORS_EXPOSE_HEADERS = 'X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After';
/** How long a browser may reuse a preflight answer (Chromium caps it at 2 hours). */
export const CORS_MAX_AGE_SECONDS = 7200;

/**
 * Cross-origin access for browser apps and the docs site's reference. Credentials travel in headers, never in
 * cookies, so any origin may be allowed without exposing anyone's session: no `Access-Control-Allow-Credentials`.
 * Preflight requests (`OPTIONS` with `Access-Control-Request-Method`) answer 204 without authentication.
 */
export function registerCors(app: FastifyInstance, settings: CorsSettings): void {
  const anyOrigin = settings.allowedOrigins === '*';
  const allowed = new Set(anyOrigin ? [] : settings.allowedOrigins);

  app.addHook('onRequest', async (request, reply) => {
    if (anyOrigin) {
      reply.header('access-control-allow-origin', '*');
    } else {
      // The answer depends on Origin, so caches must keep one copy per origin.
      reply.header('vary', 'Origin');
      const origin = request.headers.origin;
      if (origin === undefined || !allowed.has(origin)) return;
      reply.header('access-control-allow-origin', origin);
    }
    reply.header('access-control-expose-headers', CORS_EXPOSE_HEADERS);
  });

  app.options('*', { logLevel: 'warn' }, async (request, reply) => {
    if (
      request.headers['access-control-request-method'] !== undefined &&
      reply.hasHeader('access-control-allow-origin')
    ) {
      reply.header('access-control-allow-methods', 'GET, POST');
      reply.header('access-control-allow-headers', CORS_ALLOW_HEADERS);
      reply.header('access-control-max-age', String(CORS_MAX_AGE_SECONDS));
    }
    reply.header('allow', 'GET, POST, OPTIONS');
    return reply.code(204).send();
  });
}
