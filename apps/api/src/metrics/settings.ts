import { code, type Env, parsePort, type VariableDefinition } from '#api/config/parse.ts';

const DEFAULT_METRICS_HOST = '127.0.0.1';

/** Where `GET /metrics` is served (METRICS_TOKEN, METRICS_PORT, METRICS_HOST). */
export interface MetricsSettings {
  /** Required as `Authorization: Bearer <token>` wherever `/metrics` answers; it answers on the API's port only with one. */
  readonly token: string | undefined;
  /** A listener of its own for `/metrics` (API and worker processes); none when absent. */
  readonly port: number | undefined;
  readonly host: string;
}

/** The metrics variables, as the configuration reference lists them. */
export const METRICS_VARIABLES: readonly VariableDefinition[] = [
  {
    names: ['METRICS_TOKEN'],
    default: '—',
    meaning:
      "16 to 256 visible characters. With it, `GET /metrics` also answers on the API's own port, to " +
      '`Authorization: Bearer <token>` only (compared in constant time; never logged), and the `METRICS_PORT` ' +
      "listener asks for it too. Without it, the API's port has no `/metrics` (404). See " +
      '[Metrics and alerts](/docs/operations/metrics-and-alerts).',
  },
  {
    names: ['METRICS_PORT'],
    default: '—',
    meaning:
      'A listener of its own serving only `GET /metrics`, in API and worker processes alike (a worker serves no ' +
      'other HTTP): bind it where only Prometheus reaches it. Each process on one host needs its own port; `0` ' +
      'takes a free one, printed at start (under `npm start`, whose API and worker share the environment, use `0` ' +
      'or `METRICS_TOKEN`).',
  },
  {
    names: ['METRICS_HOST'],
    default: code(DEFAULT_METRICS_HOST),
    meaning: 'Where the `METRICS_PORT` listener binds (`0.0.0.0` in a container).',
  },
];

/** METRICS_TOKEN (16 to 256 visible characters), METRICS_PORT (0 picks a free one) and METRICS_HOST. */
export function parseMetricsSettings(env: Env, problems: string[]): MetricsSettings {
  const token = env.METRICS_TOKEN || undefined;
  // The token is a secret: a problem describes it, never quotes it.
  if (token !== undefined && !/^[\x21-\x7e]{16,256}$/.test(token)) {
    problems.push('METRICS_TOKEN must be 16 to 256 visible ASCII characters, without spaces');
  }
  const port = env.METRICS_PORT ? parsePort('METRICS_PORT', env.METRICS_PORT, problems) : undefined;
  return Object.freeze({ token, port, host: env.METRICS_HOST || DEFAULT_METRICS_HOST });
}
