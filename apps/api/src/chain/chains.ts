import { type Chain, createPublicClient, http, type PublicClient, type Transport, webSocket } from 'viem';
import { NETWORKS, type NetworkId } from '#api/config/networks.ts';
import { BaseError } from '#api/errors/BaseError.ts';
import { type EndpointStatus, type RankedEndpoints, rankedEndpoints } from './endpoints.ts';
import { longestRequestMs, withRateLimits } from './rateLimits.ts';
import { withRequestBudget } from './requestBudget.ts';
import { RPC_BATCH_SIZE } from './rpcBatches.ts';
import { rpcFetch } from './rpcFetch.ts';

/** Raised when a call needs a network whose RPC_URL_<id> is not set. */
export class NetworkNotConfiguredError extends BaseError {
  override name = 'NetworkNotConfiguredError';
  readonly code = 'NETWORK_NOT_CONFIGURED';
  constructor(readonly networkId: NetworkId) {
    super(`Network ${networkId} is not configured on this deployment: set RPC_URL_${networkId}`);
  }
}

export interface Chains {
  configured(): NetworkId[];
  /** The read client of a network; throws NetworkNotConfiguredError when it has no RPC URL. */
  client(networkId: NetworkId): PublicClient;
  /** The health of each of a network's endpoints when it has several (RPC_URL_<id> a list); [] otherwise. */
  endpoints(networkId: NetworkId): EndpointStatus[];
}

/** The endpoints of one RPC_URL_<id> value: a comma-separated list of URLs. */
export function rpcUrlList(value: string): string[] {
  return value
    .split(',')
    .map((url) => url.trim())
    .filter((url) => url.length > 0);
}

/** A head this many blocks behind the best endpoint's demotes an endpoint (RPC_MAX_LAG_BLOCKS_<id>). */
export const DEFAULT_MAX_LAG_BLOCKS = 5;

/**
 * HTTP requests honour the endpoint's rate limit (withRateLimits): a refused request waits and is sent again, up to
 * 30 s in all, while each attempt still times out after 10 s; viem's timeout is the outer bound of both.
 */
const fetchFn = withRateLimits(rpcFetch);
const fastFetchFn = withRateLimits(rpcFetch, { budgetMs: 0 });
const HTTP_TIMEOUT_MS = longestRequestMs();

/**
 * The read clients of the networks with an RPC URL. `maxRps` (RPC_MAX_RPS_<id>, defaults applied by the
 * configuration) keeps each network's HTTP calls within that many per second (withRequestBudget); a network
 * without one has no client-side limit.
 */
export function createChains(
  rpcUrls: Readonly<Partial<Record<NetworkId, string>>>,
  options: {
    maxRps?: Readonly<Partial<Record<NetworkId, number>>>;
    maxLagBlocks?: Readonly<Partial<Record<NetworkId, number>>>;
  } = {},
): Chains {
  const clients = new Map<NetworkId, PublicClient>();
  const ranked = new Map<NetworkId, RankedEndpoints>();
  for (const network of NETWORKS) {
    const value = rpcUrls[network.id];
    if (!value) continue;
    const urls = rpcUrlList(value);
    const budget = options.maxRps?.[network.id];
    // With several endpoints a rate-limited one is left at once for the next (its cool-down waits it out).
    const transports = urls.map((url) => transportOf(url, budget, urls.length > 1));
    let transport = transports[0] as Transport;
    if (urls.length > 1) {
      const endpoints = rankedEndpoints(urls, transports, {
        maxLagBlocks: options.maxLagBlocks?.[network.id] ?? DEFAULT_MAX_LAG_BLOCKS,
      });
      ranked.set(network.id, endpoints);
      transport = endpoints.transport;
    }
    // The type arguments named: the client is PublicClient's default instantiation, not one converted to it.
    clients.set(network.id, createPublicClient<Transport, Chain | undefined>({ transport, pollingInterval: 1_000 }));
  }
  return {
    configured: () => [...clients.keys()],
    client(networkId) {
      const client = clients.get(networkId);
      if (!client) throw new NetworkNotConfiguredError(networkId);
      return client;
    },
    endpoints: (networkId) => ranked.get(networkId)?.status() ?? [],
  };
}

/**
 * The transport of one endpoint: each within its own request budget (`maxRps` per endpoint), batching the calls
 * of one tick. `failFast`: a rate limit fails the request at once rather than waiting it out (another endpoint
 * takes it).
 */
function transportOf(url: string, budget: number | undefined, failFast: boolean): Transport {
  if (url.startsWith('ws')) return webSocket(url);
  const limited = failFast ? fastFetchFn : fetchFn;
  return http(url, {
    timeout: HTTP_TIMEOUT_MS,
    retryCount: 0,
    batch: { batchSize: RPC_BATCH_SIZE, wait: 0 },
    // rpcFetch stops reading past viem's 10 MiB itself; viem would encode the text again to count its bytes.
    maxResponseBodySize: false,
    fetchFn: budget ? withRequestBudget(limited, budget) : limited,
  });
}
