// Client options are checked once, in the constructor, and frozen. Unknown options throw (a misspelt
// `maxRetry` should not silently mean the default), as in stripe-node's ALLOWED_CONFIG_PROPERTIES.

/**
 * The `baseUrl` used when none is given: where `npm start` serves the Public API on your machine.
 *
 * @example
 * ```ts
 * import { DEFAULT_BASE_URL, MountainClient } from '@mountain/public-api-client';
 *
 * const client = new MountainClient({ apiKey: 'mtn_test_…', baseUrl: DEFAULT_BASE_URL });
 * ```
 */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080/public-api/v3';

interface CommonOptions {
  /** The API root, default `http://127.0.0.1:8080/public-api/v3`. */
  baseUrl?: string;
  /** Retries after the first attempt on connection errors, timeouts, 429 and 5xx (not 501). Default 2. */
  maxRetries?: number;
  /** Milliseconds each attempt may take before it is abandoned. Default 30 000. */
  timeout?: number;
  /** First backoff delay in milliseconds, doubled at each retry, with jitter. Default 500. */
  initialRetryDelayMs?: number;
  /** Longest backoff delay in milliseconds. Default 8 000. `Retry-After` is honoured even when longer. */
  maxRetryDelayMs?: number;
  /** The `fetch` to use, default the global one (Node 20+, browsers). */
  fetch?: typeof fetch;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
}

/**
 * Options of `new MountainClient(options)`: an `apiKey`, or an `accessToken` with an optional `projectId`
 * (sent as `X-Project-Id`; needed when the token's user belongs to several projects and the token names none).
 *
 * @example
 * ```ts
 * import { MountainClient, type MountainClientOptions } from '@mountain/public-api-client';
 *
 * const options: MountainClientOptions = { accessToken: 'eyJ…', projectId: 7, maxRetries: 4, timeout: 10_000 };
 * const client = new MountainClient(options);
 * ```
 */
export type MountainClientOptions = CommonOptions &
  (
    | { apiKey: string; accessToken?: never; projectId?: never }
    | { accessToken: string; projectId?: number; apiKey?: never }
  );

/**
 * Overrides for one call; the last argument of every method.
 *
 * @example
 * ```ts
 * import type { RequestOptions } from '@mountain/public-api-client';
 *
 * const options: RequestOptions = { timeout: 5_000, maxRetries: 0, signal: AbortSignal.timeout(20_000) };
 * const { contracts } = await client.getContracts(options);
 * ```
 */
export interface RequestOptions {
  /** Milliseconds each attempt may take. */
  timeout?: number;
  /** Aborts the call, including its backoff waits; the call rejects with `signal.reason`. */
  signal?: AbortSignal;
  /** Retries after the first attempt. */
  maxRetries?: number;
  /** `executeTransaction` only: the idempotency key, when the body has none. Generated when neither has one. */
  idempotencyKey?: string;
}

/** The checked, frozen configuration. @internal */
export interface ClientConfig {
  readonly baseUrl: string;
  readonly maxRetries: number;
  readonly timeout: number;
  readonly initialRetryDelayMs: number;
  readonly maxRetryDelayMs: number;
  readonly fetch: typeof fetch;
  readonly headers: Readonly<Record<string, string>>;
}

const ALLOWED = new Set([
  'apiKey',
  'accessToken',
  'projectId',
  'baseUrl',
  'maxRetries',
  'timeout',
  'initialRetryDelayMs',
  'maxRetryDelayMs',
  'fetch',
  'headers',
]);
const REQUEST_ALLOWED = new Set(['timeout', 'signal', 'maxRetries', 'idempotencyKey']);

function unknownKeys(object: object, allowed: Set<string>, what: string): void {
  const unknown = Object.keys(object).filter((key) => !allowed.has(key));
  if (unknown.length > 0) {
    throw new TypeError(`Unknown ${what}: ${unknown.join(', ')}. Allowed: ${[...allowed].join(', ')}`);
  }
}

function count(value: unknown, name: string, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new TypeError(`${name} must be an integer ≥ ${min}`);
  }
  return value;
}

/** Checks the constructor's options; throws a `TypeError` naming what is wrong. @internal */
export function parseOptions(options: MountainClientOptions): ClientConfig {
  if (typeof options !== 'object' || options === null) throw new TypeError('MountainClient needs an options object');
  unknownKeys(options, ALLOWED, 'MountainClient option');
  const { apiKey, accessToken, projectId } = options;
  if ((apiKey === undefined) === (accessToken === undefined)) {
    throw new TypeError('Pass exactly one of apiKey and accessToken');
  }
  if (apiKey !== undefined && (typeof apiKey !== 'string' || apiKey === '')) throw new TypeError('Bad apiKey');
  if (accessToken !== undefined && (typeof accessToken !== 'string' || accessToken === '')) {
    throw new TypeError('Bad accessToken');
  }
  if (projectId !== undefined && apiKey !== undefined) {
    throw new TypeError('projectId goes with an accessToken: an API key always acts in its own project');
  }
  const baseUrl = options.baseUrl ?? DEFAULT_BASE_URL;
  if (typeof baseUrl !== 'string' || !/^https?:\/\//.test(baseUrl))
    throw new TypeError('baseUrl must be an http(s) URL');
  const fetchFn = options.fetch ?? globalThis.fetch;
  if (typeof fetchFn !== 'function') throw new TypeError('No fetch: pass the fetch option');

  const headers: Record<string, string> = { ...options.headers, accept: 'application/json' };
  if (apiKey !== undefined) headers['x-api-key'] = apiKey;
  else headers.authorization = `Bearer ${accessToken}`;
  if (projectId !== undefined) headers['x-project-id'] = String(count(projectId, 'projectId', 0, 1));

  // Called unbound: browsers throw "Illegal invocation" when window.fetch is called as a method of another object.
  const boundFetch: typeof fetch = (input, init) => fetchFn(input, init);
  return Object.freeze({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    maxRetries: count(options.maxRetries, 'maxRetries', 2),
    timeout: count(options.timeout, 'timeout', 30_000, 1),
    initialRetryDelayMs: count(options.initialRetryDelayMs, 'initialRetryDelayMs', 500),
    maxRetryDelayMs: count(options.maxRetryDelayMs, 'maxRetryDelayMs', 8_000),
    fetch: boundFetch,
    headers: Object.freeze(headers),
  });
}

/** Checks one call's overrides. @internal */
export function parseRequestOptions(options: RequestOptions | undefined): RequestOptions {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null) throw new TypeError('Request options must be an object');
  unknownKeys(options, REQUEST_ALLOWED, 'request option');
  if (options.timeout !== undefined) count(options.timeout, 'timeout', 0, 1);
  if (options.maxRetries !== undefined) count(options.maxRetries, 'maxRetries', 0);
  return options;
}
