import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { registry } from './instruments.ts';
import { readPlatformState, type StateSource } from './platformState.ts';
import type { MetricsSettings } from './settings.ts';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Compares the bearer token in constant time (digests of equal length whatever was sent). */
function authorized(header: string | undefined, token: string | undefined): boolean {
  if (token === undefined) return true;
  const sent = /^Bearer (.+)$/i.exec(header ?? '')?.[1] ?? '';
  return timingSafeEqual(digest(sent), digest(token));
}

/**
 * `GET /metrics` in the Prometheus text format: this process's counters and histograms, and the platform's state
 * read at each scrape. An operator endpoint, outside the Public API (and its OpenAPI document): no API key, no rate
 * limit; `token`, when given, must come as a bearer token.
 */
export function registerMetricsRoute(app: FastifyInstance, source: StateSource, token: string | undefined): void {
  app.get('/metrics', { logLevel: 'warn' }, async (request, reply) => {
    if (!authorized(request.headers.authorization, token)) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer realm="metrics"')
        .type('text/plain; charset=utf-8')
        .send('A valid bearer token (METRICS_TOKEN) is required.\n');
    }
    await readPlatformState(source);
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}

/** A listener serving only `/metrics` on `settings.port`: how a worker process, which serves no HTTP, is scraped. */
export async function startMetricsServer(
  settings: MetricsSettings & { port: number },
  source: StateSource,
): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify({ logger: false });
  registerMetricsRoute(app, source, settings.token);
  await app.listen({ host: settings.host, port: settings.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  return { url: `http://${settings.host}:${port}/metrics`, close: () => app.close() };
}
