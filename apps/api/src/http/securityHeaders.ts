import type { FastifyInstance } from 'fastify';

/**
 * Headers every answer carries, API and health routes and errors alike. The API answers JSON only, so nothing of
 * it may be rendered, framed, sniffed into another type, cached or leak a referrer. HSTS is sent on plain http
 * too, where browsers ignore it: behind a TLS-terminating proxy it is the answer the browser sees.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
});

export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', async (_request, reply) => {
    reply.headers(SECURITY_HEADERS);
  });
}
