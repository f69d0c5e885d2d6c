import { type LookupAddress, type LookupOptions, lookup as lookupCallback } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ApiError } from '#api/errors/ApiError.ts';
import { type AddressClass, type AddressKind, classifyAddress, describeAddressClass } from './addressClass.ts';
import {
  type DeliverySettings,
  defaultDeliverySettings,
  type PortRange,
  type PrivateAddressAllowance,
} from './settings.ts';

export type WebhookUrlPolicy = Pick<DeliverySettings, 'allowPrivateWebhookAddresses' | 'webhookAllowedPorts'>;

export function allowed(kind: AddressKind, allowance: PrivateAddressAllowance): boolean {
  return kind === 'public' || allowance === 'all' || (allowance === 'loopback' && kind === 'loopback');
}

/** "80, 443 and 1024-65535" */
export function describePorts(ports: readonly PortRange[]): string {
  const items = ports.map(([from, to]) => (from === to ? String(from) : `${from}-${to}`));
  return items.length > 1 ? `${items.slice(0, -1).join(', ')} and ${items.at(-1)}` : (items[0] ?? 'none');
}

/** The port a URL connects to: the one it names, else its scheme's default. */
function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** The class of an address the allowance refuses, or undefined when it is allowed. */
function addressRefusal(address: string, allowance: PrivateAddressAllowance): AddressClass | undefined {
  const found = classifyAddress(address);
  return allowed(found.kind, allowance) ? undefined : found;
}

/**
 * Why a webhook URL is refused, or undefined when it may be called. Its port must be an allowed one, and every
 * address the host resolves to must be allowed, so a name cannot smuggle in one private address among public ones.
 * A host that does not resolve is not refused here (it may resolve later); delivery checks again before each batch.
 * The reason names the rule broken, never a resolved address: it is shown to the client.
 */
export async function webhookUrlRefusal(url: string, policy: WebhookUrlPolicy): Promise<string | undefined> {
  const parsed = new URL(url);
  const port = portOf(parsed);
  if (!policy.webhookAllowedPorts.some(([from, to]) => port >= from && port <= to)) {
    return `its port ${port} is not one this deployment calls (webhook URLs may use ports ${describePorts(policy.webhookAllowedPorts)})`;
  }
  const allowance = policy.allowPrivateWebhookAddresses;
  if (allowance === 'all') return undefined;
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host)) {
    const refused = addressRefusal(host, allowance);
    return refused && `its host is ${describeAddressClass(refused)}, which this deployment does not call`;
  }
  let addresses: string[];
  try {
    addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return undefined;
  }
  for (const address of addresses) {
    const refused = addressRefusal(address, allowance);
    if (refused) return `its host resolves to ${describeAddressClass(refused)}, which this deployment does not call`;
  }
  return undefined;
}

/**
 * A `lookup` for outgoing webhook connections that refuses addresses the deployment does not call, so a name that
 * resolves to a public address when checked and to a private one when connecting (DNS rebinding) is still refused.
 */
export function guardedLookup(allowance: PrivateAddressAllowance) {
  return (
    hostname: string,
    options: LookupOptions,
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    lookupCallback(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = addresses.map((a) => addressRefusal(a.address, allowance)).find((r) => r !== undefined);
      if (refused) {
        const denial: NodeJS.ErrnoException = new Error(
          `${hostname} resolves to ${describeAddressClass(refused)}, which this deployment does not call`,
        );
        denial.code = 'EADDRREFUSED';
        return callback(denial, []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

/**
 * 400 WEBHOOK_URL_REFUSED when the URL's port or an address its host resolves to is one this deployment does not
 * call: what the routes that take a webhook URL (a subscription's, an endpoint's) check before storing it.
 */
export async function assertWebhookUrlAllowed(
  url: string,
  policy: WebhookUrlPolicy = defaultDeliverySettings(),
  field = 'body.webhookURL',
): Promise<void> {
  const refusal = await webhookUrlRefusal(url, policy);
  if (refusal) {
    throw new ApiError('WEBHOOK_URL_REFUSED', { reason: refusal }, { details: [{ field, message: refusal }] });
  }
}
