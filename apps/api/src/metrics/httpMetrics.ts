import type { FastifyInstance } from 'fastify';
import { httpDuration, httpRequests } from './instruments.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The operation a route serves, as metrics name it: its operationId. */
    operation?: string;
  }
}

/**
 * Counts every answered request by operation and status, and times it. The operation is the route's operationId,
 * else its path without the slash (`healthz`, `readyz`, `metrics`), else `unmatched`: never the requested URL,
 * which a client could vary without end.
 */
export function registerHttpMetrics(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions;
    const operation = route.config?.operation ?? route.url?.replace(/^\//, '') ?? 'unmatched';
    httpRequests.inc({ operation, status: reply.statusCode });
    httpDuration.observe({ operation }, reply.elapsedTime / 1000);
  });
}
