import { custom, type EIP1193RequestFn, HttpRequestError, RpcRequestError, TimeoutError, type Transport } from 'viem';
import { causes } from '#api/lib/causes.ts';
import { isRateLimited, rateLimitRetryAfterMs, shortError, withoutRpcUrls } from './chainErrors.ts';

// Several JSON-RPC endpoints of one network (RPC_URL_<id>="url,url,…") as one transport. Each endpoint is ranked
// by its health: a failure (unreachable, timed out, a 5xx, a rate limit) takes it out for a cool-down that doubles
// while it keeps failing; a head more than `maxLagBlocks` behind the best one seen demotes it; among the healthy
// ones the fastest (latency averaged over its answers) comes first. Reads go to the first; a read that fails for
// the endpoint's sake (not the node's answer: a revert, a refused range) is asked of the next at once. A raw
// transaction goes to every endpoint not cooling down, the same signed bytes (so the same hash): any that takes
// it is enough. viem's `fallback` transport ranks by a periodic probe and sends a transaction to one endpoint
// only; this one ranks by the answers themselves (no probe traffic while requests flow) and broadcasts.

/** How often, at most, every endpoint is asked for its head to measure lag (only while the transport is used). */
const PROBE_EVERY_MS = 2_000;
const COOL_DOWN_MS = 1_000;
const MAX_COOL_DOWN_MS = 30_000;
/** Weight of the newest answer in an endpoint's latency average. */
const LATENCY_WEIGHT = 0.2;

export type EndpointState = 'ok' | 'lagging' | 'failing';

/** What /readyz and the metrics show of one endpoint (never its URL, which may hold a provider key). */
export interface EndpointStatus {
  /** `<position>:<host>`, e.g. `1:eth-mainnet.g.alchemy.com`. */
  name: string;
  state: EndpointState;
  /** The highest head it answered, or null. */
  head: number | null;
  latencyMs: number | null;
  /** Requests answered and failed since the process started. */
  answered: number;
  failed: number;
  /** Why it is failing, when it is. */
  lastError: string | null;
}

interface Endpoint {
  name: string;
  request: EIP1193RequestFn;
  latencyMs: number | null;
  head: number | null;
  answered: number;
  failed: number;
  failures: number;
  coolingUntil: number;
  lastError: string | null;
}

/** The label of an endpoint: its position in the list and its host. */
export function endpointName(url: string, index: number): string {
  let host = 'endpoint';
  try {
    host = new URL(url).host;
  } catch {}
  return `${index + 1}:${host}`;
}

/**
 * True when a request failed because of the endpoint (it could not be reached, timed out, answered 5xx or refused
 * for its rate limit): another endpoint may answer it. A JSON-RPC error it answered (a revert, a nonce too low, a
 * range too wide) is the node's answer, and another node would answer the same.
 */
export function isEndpointFailure(error: unknown): boolean {
  if (isRateLimited(error)) return true;
  for (const e of causes(error)) {
    if (e instanceof TimeoutError) return true;
    if (e instanceof HttpRequestError && (e.status === undefined || e.status >= 500 || e.status === 408)) return true;
    if (e instanceof RpcRequestError && e.code === -32603 && /upstream|unavailable|timeout|gateway/i.test(e.details))
      return true;
  }
  return false;
}

/** One line on why an endpoint failed a request, never its URL (it may hold a provider key). */
export function describeFailure(error: unknown): string {
  const text = withoutRpcUrls(shortError(error));
  if (isRateLimited(error)) return `rate-limited: ${text}`.slice(0, 300);
  const status = [...causes(error)].find((e) => e instanceof HttpRequestError && e.status !== undefined) as
    | HttpRequestError
    | undefined;
  return (status ? `HTTP ${status.status}: ${text}` : text).slice(0, 300);
}

export interface RankedEndpoints {
  transport: Transport;
  status(): EndpointStatus[];
}

/**
 * One transport over `transports` (one per URL, already paced and rate-limited each), ranked as described above.
 * `now` is for tests.
 */
export function rankedEndpoints(
  urls: readonly string[],
  transports: readonly Transport[],
  options: { maxLagBlocks: number; now?: () => number },
): RankedEndpoints {
  const now = options.now ?? Date.now;
  const endpoints: Endpoint[] = transports.map((transport, i) => ({
    name: endpointName(urls[i] as string, i),
    request: transport({ retryCount: 0 }).request,
    latencyMs: null,
    head: null,
    answered: 0,
    failed: 0,
    failures: 0,
    coolingUntil: 0,
    lastError: null,
  }));
  let lastProbe = 0;

  const bestHead = () => Math.max(...endpoints.map((e) => e.head ?? 0));
  // Failing from its last failed request until it answers again (its head is stale meanwhile, so it is never
  // called lagging for it); the cool-down only decides when it is tried again.
  const stateOf = (e: Endpoint): EndpointState =>
    e.failures > 0 ? 'failing' : e.head !== null && e.head < bestHead() - options.maxLagBlocks ? 'lagging' : 'ok';
  const cooling = (e: Endpoint) => e.coolingUntil > now();
  const RANK: Record<EndpointState, number> = { ok: 0, lagging: 1, failing: 2 };
  /**
   * Healthy first, fastest first; lagging ones next; failing ones whose cool-down is over (tried again); those
   * cooling down last, soonest back first (still tried when nothing else works).
   */
  const ranked = () =>
    endpoints
      .map((e) => ({ e, state: stateOf(e), cooling: cooling(e) }))
      .sort(
        (a, b) =>
          Number(a.cooling) - Number(b.cooling) ||
          RANK[a.state] - RANK[b.state] ||
          (a.cooling ? a.e.coolingUntil - b.e.coolingUntil : (a.e.latencyMs ?? 0) - (b.e.latencyMs ?? 0)),
      )
      .map(({ e }) => e);

  const succeeded = (e: Endpoint, startedAt: number, method: string, result: unknown) => {
    e.answered++;
    e.failures = 0;
    e.coolingUntil = 0;
    e.lastError = null;
    const ms = now() - startedAt;
    e.latencyMs = e.latencyMs === null ? ms : e.latencyMs * (1 - LATENCY_WEIGHT) + ms * LATENCY_WEIGHT;
    if (method === 'eth_blockNumber' && typeof result === 'string') e.head = Math.max(e.head ?? 0, Number(result));
  };
  const failedOn = (e: Endpoint, error: unknown) => {
    e.failed++;
    e.failures++;
    const asked = rateLimitRetryAfterMs(error);
    e.coolingUntil = now() + Math.max(asked ?? 0, Math.min(MAX_COOL_DOWN_MS, COOL_DOWN_MS * 2 ** (e.failures - 1)));
    e.lastError = describeFailure(error);
  };
  const ask = async (e: Endpoint, args: Parameters<EIP1193RequestFn>[0]) => {
    const startedAt = now();
    try {
      const result = await e.request(args as never);
      succeeded(e, startedAt, args.method, result);
      return result;
    } catch (error) {
      if (isEndpointFailure(error)) failedOn(e, error);
      // The node answered (an error of the call itself): the endpoint is well.
      else succeeded(e, startedAt, args.method, undefined);
      throw error;
    }
  };
  /** Every endpoint's head, now and then, so that a lagging one is known before it answers a read. */
  const probe = () => {
    if (endpoints.length < 2 || now() - lastProbe < PROBE_EVERY_MS) return;
    lastProbe = now();
    for (const e of endpoints) {
      if (!cooling(e)) ask(e, { method: 'eth_blockNumber' }).catch(() => {});
    }
  };

  const request = (async (args: Parameters<EIP1193RequestFn>[0]) => {
    probe();
    if (args.method === 'eth_sendRawTransaction') {
      // Every endpoint not cooling down (or, when all are, every one): the same bytes, the first to take it wins.
      const order = ranked();
      const targets = order.filter((e) => !cooling(e));
      const answers = await Promise.allSettled((targets.length > 0 ? targets : order).map((e) => ask(e, args)));
      const taken = answers.find((a) => a.status === 'fulfilled');
      if (taken) return (taken as PromiseFulfilledResult<unknown>).value;
      // The node's own refusal (a nonce too low…) before an endpoint's failure: it says more.
      const refusals = answers.map((a) => (a as PromiseRejectedResult).reason);
      throw refusals.find((r) => !isEndpointFailure(r)) ?? refusals[0];
    }
    let lastError: unknown;
    for (const e of ranked()) {
      try {
        return await ask(e, args);
      } catch (error) {
        if (!isEndpointFailure(error)) throw error;
        lastError = error;
      }
    }
    throw lastError;
  }) as EIP1193RequestFn;

  return {
    transport: custom({ request }, { retryCount: 0 }),
    status: () =>
      endpoints.map((e) => ({
        name: e.name,
        state: stateOf(e),
        head: e.head,
        latencyMs: e.latencyMs === null ? null : Math.round(e.latencyMs),
        answered: e.answered,
        failed: e.failed,
        lastError: e.lastError,
      })),
  };
}
