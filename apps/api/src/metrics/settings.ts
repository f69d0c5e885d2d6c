import { type Env, parsePort } from '#api/config/parse.ts';

/** Where `GET /metrics` is served (METRICS_TOKEN, METRICS_PORT, METRICS_HOST). */
export interface MetricsSettings {
  /** Required as `Authorization: Bearer <token>` wherever `/metrics` answers; it answers on the API's port only with one. */
  readonly token: string | undefined;
  /** A listener of its own for `/metrics` (API and worker processes); none when absent. */
  readonly port: number | undefined;
  readonly host: string;
}

/** METRICS_TOKEN (16 to 256 visible characters), METRICS_PORT (0 picks a free one) and METRICS_HOST. */
export function parseMetricsSettings(env: Env, problems: string[]): MetricsSettings {
  const token = env.METRICS_TOKEN || undefined;
  // The token is a secret: a problem describes it, never quotes it.
  if (token !== undefined && !/^[\x21-\x7e]{16,256}$/.test(token)) {
    problems.push('METRICS_TOKEN must be 16 to 256 visible ASCII characters, without spaces');
  }
  const port = env.METRICS_PORT ? parsePort('METRICS_PORT', env.METRICS_PORT, problems) : undefined;
  return Object.freeze({ token, port, host: env.METRICS_HOST || '127.0.0.1' });
}
