import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '#api/http/appDeps.ts';

const CHECK_TIMEOUT_MS = 2_000;

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS).unref()),
  ]);
}

/**
 * Liveness (`/healthz`: the process answers) and readiness (`/readyz`). Readiness is the database's: without it no
 * request can be served (503). Each configured chain's state is listed beside it, but a chain that is down does not
 * make the process unready (a load balancer would otherwise take every replica out because of one network); the
 * operations that need that chain answer 503 CHAIN_UNAVAILABLE meanwhile. `status` is `ready` when everything
 * answers, `degraded` when only chains do not (or one endpoint of a network with several: each is listed as
 * `chain:<id>:<position>:<host>`), `not ready` without the database.
 */
export function registerHealthRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get('/healthz', { logLevel: 'warn' }, async () => ({ status: 'ok' }));
  app.get('/readyz', { logLevel: 'warn' }, async (_request, reply) => {
    const checks: Record<string, string> = {};
    const probes: [string, () => Promise<unknown>][] = [
      ['database', () => deps.db.query('SELECT 1')],
      ...deps.chains
        .configured()
        .map((id): [string, () => Promise<unknown>] => [`chain:${id}`, () => deps.chains.client(id).getBlockNumber()]),
    ];
    await Promise.all(
      probes.map(async ([name, probe]) => {
        checks[name] = await withTimeout(probe()).then(
          () => 'ok',
          (error: Error) => `unreachable: ${error.message.split('\n')[0]}`,
        );
      }),
    );
    // A network of several endpoints: each one's health, as its requests (this probe's among them) left it.
    for (const id of deps.chains.configured()) {
      for (const endpoint of deps.chains.endpoints(id)) {
        checks[`chain:${id}:${endpoint.name}`] =
          endpoint.state === 'ok'
            ? 'ok'
            : endpoint.state === 'lagging'
              ? `lagging: head ${endpoint.head}`
              : `failing: ${endpoint.lastError ?? 'unreachable'}`;
      }
    }
    const ready = checks.database === 'ok';
    const status = !ready ? 'not ready' : Object.values(checks).every((c) => c === 'ok') ? 'ready' : 'degraded';
    return reply.code(ready ? 200 : 503).send({ status, checks });
  });
}
