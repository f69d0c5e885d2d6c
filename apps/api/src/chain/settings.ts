// The chain settings of the configuration: each network's RPC endpoint and the pace of the calls sent to it.

import { DEFAULT_RPC_MAX_RPS, NETWORK_IDS, type NetworkId } from '#api/config/networks.ts';
import type { Env } from '#api/config/parse.ts';
import { parseInteger } from '#api/config/parse.ts';

/** RPC_URL_<id>: each configured network's http(s) or ws(s) endpoint; a network without one is not configured. */
export function parseRpcUrls(env: Env, problems: string[]): Readonly<Partial<Record<NetworkId, string>>> {
  const rpcUrls: Partial<Record<NetworkId, string>> = {};
  for (const id of NETWORK_IDS) {
    const value = env[`RPC_URL_${id}`];
    if (!value) continue;
    if (!/^(https?|wss?):\/\//.test(value)) problems.push(`RPC_URL_${id} must be an http(s) or ws(s) URL`);
    else rpcUrls[id] = value;
  }
  return Object.freeze(rpcUrls);
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
