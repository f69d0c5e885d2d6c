// TRUSTED_PROXIES: the load balancers and reverse proxies in front of the API. A request that reaches the API from
// one of them is the client named by its X-Forwarded-For (the nearest address in it that is no trusted proxy), for
// the rate limits and the request logs alike; from any other address, X-Forwarded-For is ignored, since anyone can
// send it. Fastify's `trustProxy` (proxy-addr) walks the header that way.
import { isIP } from 'node:net';
import type { Env, VariableDefinition } from '#api/config/parse.ts';

/** The proxies' variable, as the configuration reference lists it. */
export const TRUSTED_PROXY_VARIABLES: readonly VariableDefinition[] = [
  {
    names: ['TRUSTED_PROXIES'],
    default: '—',
    meaning:
      'The load balancers and reverse proxies in front of the API: comma-separated addresses and ranges ' +
      '(`10.0.0.0/8,2001:db8::1`). A request from one of them is the client its `X-Forwarded-For` names (the ' +
      'nearest address in it that is not a listed proxy), for the auth-failure and link-exchange limits and the ' +
      "request logs' `remoteAddress`; from any other address, `X-Forwarded-For` is ignored.",
  },
];

/** Whether `item` is an IP address, or a range of them in CIDR form (`10.0.0.0/8`, `fd00::/8`). */
function isAddressOrRange(item: string): boolean {
  const [address = '', prefix, ...rest] = item.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** TRUSTED_PROXIES: a comma-separated list of addresses and ranges; none by default (X-Forwarded-For ignored). */
export function parseTrustedProxies(env: Env, problems: string[]): readonly string[] {
  const value = env.TRUSTED_PROXIES?.trim();
  if (!value) return Object.freeze([]);
  const items = value.split(',').map((item) => item.trim());
  for (const item of items) {
    if (!isAddressOrRange(item)) {
      problems.push(`TRUSTED_PROXIES: "${item}" is not an IP address nor a range of them such as 10.0.0.0/8`);
    }
  }
  return Object.freeze(items);
}
