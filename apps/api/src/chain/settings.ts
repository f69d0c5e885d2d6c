// The chain settings of the configuration: each network's RPC endpoint and the pace of the calls sent to it.

import { DEFAULT_RPC_MAX_RPS, NETWORK_IDS, type NetworkId } from '#api/config/networks.ts';
import type { Env, VariableDefinition } from '#api/config/parse.ts';
import { code, parseInteger, perNetwork } from '#api/config/parse.ts';
import { DEFAULT_MAX_LAG_BLOCKS, rpcUrlList } from './chains.ts';

/** The chain variables, as the configuration reference lists them. */
export const CHAIN_VARIABLES: readonly VariableDefinition[] = [
  {
    names: ['RPC_URL_<networkId>'],
    default: '`RPC_URL_1337` set by `npm start`',
    meaning:
      `JSON-RPC endpoint (http(s) or ws(s)) of each network: ${NETWORK_IDS.join(', ')}, or several separated by ` +
      'commas. A call that needs an unconfigured network answers a 4xx naming the variable. With one endpoint, a ' +
      "provider's rate limit (HTTP 429, or a batch answered in part with code 429) is waited out: each request is " +
      "sent again after `Retry-After` or Infura's `backoff_seconds` (else backoff with jitter), up to 30 s, while " +
      "the process's other requests to that endpoint wait with it; past that it fails as rate-limited, a transient " +
      'error. With several, they are ranked by health: reads go to the fastest healthy one, and a read it fails ' +
      '(unreachable, timed out, 5xx, rate-limited) is asked of the next at once, while the failing one cools down ' +
      '(1 s, doubling to 30 s, or as long as its rate limit asks); a raw transaction is sent to every endpoint not ' +
      'cooling down. `/readyz` lists each endpoint.',
  },
  {
    names: ['RPC_MAX_RPS_<networkId>'],
    default: `${perNetwork(DEFAULT_RPC_MAX_RPS)}; elsewhere, no limit`,
    meaning:
      "The most JSON-RPC calls per second one process sends to that network's RPC (HTTP endpoints; each call of a " +
      'batch counts, as providers count them); `0` turns the limit off. Requests are paced evenly within it, in ' +
      "order, up to 200 ms' worth at once, so that a provider's rate limit (429) is rarely met; set it to your " +
      "plan's rate (per process: divide it among the processes sharing one key). With several endpoints, each " +
      'has this budget of its own.',
  },
  {
    names: ['RPC_MAX_LAG_BLOCKS_<networkId>'],
    default: code(DEFAULT_MAX_LAG_BLOCKS),
    meaning:
      'With several endpoints: one whose head is more than this many blocks behind the best head seen is ranked ' +
      'after the healthy ones (reads go to it only when they fail). Heads are read from the answers, and every 2 s ' +
      'from each endpoint while the network is used.',
  },
];

/** RPC_URL_<id>: each configured network's http(s) or ws(s) endpoint; a network without one is not configured. */
export function parseRpcUrls(env: Env, problems: string[]): Readonly<Partial<Record<NetworkId, string>>> {
  const rpcUrls: Partial<Record<NetworkId, string>> = {};
  for (const id of NETWORK_IDS) {
    const value = env[`RPC_URL_${id}`];
    if (!value) continue;
    const urls = rpcUrlList(value);
    if (urls.length === 0 || urls.some((url) => !/^(https?|wss?):\/\//.test(url))) {
      problems.push(`RPC_URL_${id} must be an http(s) or ws(s) URL, or several separated by commas`);
    } else rpcUrls[id] = urls.join(',');
  }
  return Object.freeze(rpcUrls);
}

/** RPC_MAX_LAG_BLOCKS_<id>: how far behind the best head an endpoint may be before it is ranked after the others. */
export function parseRpcMaxLagBlocks(env: Env, problems: string[]): Readonly<Partial<Record<NetworkId, number>>> {
  const lag: Partial<Record<NetworkId, number>> = {};
  for (const id of NETWORK_IDS) {
    const value = env[`RPC_MAX_LAG_BLOCKS_${id}`];
    if (value !== undefined) lag[id] = parseInteger(`RPC_MAX_LAG_BLOCKS_${id}`, value, problems, 0, 100_000);
  }
  return Object.freeze(lag);
}

/** RPC_MAX_RPS_<id>: the most JSON-RPC calls per second sent to a network's RPC; 0 lifts the network's default. */
export function parseRpcMaxRps(env: Env, problems: string[]): Readonly<Partial<Record<NetworkId, number>>> {
  const rpcMaxRps: Partial<Record<NetworkId, number>> = { ...DEFAULT_RPC_MAX_RPS };
  for (const id of NETWORK_IDS) {
    const value = env[`RPC_MAX_RPS_${id}`];
    if (value === undefined) continue;
    const rps = parseInteger(`RPC_MAX_RPS_${id}`, value, problems, 0, 1_000_000);
    if (rps > 0) rpcMaxRps[id] = rps;
    else delete rpcMaxRps[id];
  }
  return Object.freeze(rpcMaxRps);
}
