import { type Chain, createPublicClient, http, type PublicClient, type Transport, webSocket } from 'viem';
import { NETWORKS, type NetworkId } from '#api/config/networks.ts';
import { BaseError } from '#api/errors/BaseError.ts';
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
}

/**
 * HTTP requests honour the endpoint's rate limit (withRateLimits): a refused request waits and is sent again, up to
 * 30 s in all, while each attempt still times out after 10 s; viem's timeout is the outer bound of both.
 */
const fetchFn = withRateLimits(rpcFetch);
const HTTP_TIMEOUT_MS = longestRequestMs();

/**
 * The read clients of the networks with an RPC URL. `maxRps` (RPC_MAX_RPS_<id>, defaults applied by the
 * configuration) keeps each network's HTTP calls within that many per second (withRequestBudget); a network
 * without one has no client-side limit.
 */
export function createChains(
  rpcUrls: Readonly<Partial<Record<NetworkId, string>>>,
  options: { maxRps?: Readonly<Partial<Record<NetworkId, number>>> } = {},
): Chains {
  const clients = new Map<NetworkId, PublicClient>();
  for (const network of NETWORKS) {
    const url = rpcUrls[network.id];
    if (!url) continue;
    const budget = options.maxRps?.[network.id];
    const transport = url.startsWith('ws')
      ? webSocket(url)
      : http(url, {
          timeout: HTTP_TIMEOUT_MS,
          retryCount: 0,
          batch: { batchSize: RPC_BATCH_SIZE, wait: 0 },
          // rpcFetch stops reading past viem's 10 MiB itself; viem would encode the text again to count its bytes.
          maxResponseBodySize: false,
          fetchFn: budget ? withRequestBudget(fetchFn, budget) : fetchFn,
        });
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
  };
}
