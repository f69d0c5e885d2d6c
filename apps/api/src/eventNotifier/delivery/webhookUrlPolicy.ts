import { type LookupAddress, type LookupOptions, lookup as lookupCallback } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import type { PrivateAddressAllowance } from '#api/eventNotifier/settings.ts';

type AddressKind = 'public' | 'loopback' | 'private' | 'link-local';

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

const linkLocal = new BlockList();
linkLocal.addSubnet('169.254.0.0', 16, 'ipv4');
linkLocal.addSubnet('fe80::', 10, 'ipv6');

// Everything else that is not the public internet: RFC 1918, CGNAT, "this network", ULA, multicast, reserved.
const privateRanges = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  privateRanges.addSubnet(net, prefix, 'ipv4');
}
privateRanges.addAddress('::', 'ipv6');
privateRanges.addSubnet('fc00::', 7, 'ipv6');
privateRanges.addSubnet('ff00::', 8, 'ipv6');

export function classifyAddress(address: string): AddressKind {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const ip = mapped ? (mapped[1] as string) : address;
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  if (loopback.check(ip, family)) return 'loopback';
  if (linkLocal.check(ip, family)) return 'link-local';
  if (privateRanges.check(ip, family)) return 'private';
  return 'public';
}

export function allowed(kind: AddressKind, allowance: PrivateAddressAllowance): boolean {
  return kind === 'public' || allowance === 'all' || (allowance === 'loopback' && kind === 'loopback');
}

/**
 * Why a webhook URL is refused, or undefined when it may be called. Every address the host resolves to must be
 * allowed, so a name cannot smuggle in one private address among public ones. A host that does not resolve is
 * not refused here (it may resolve later); delivery checks again before each batch.
 */
export async function webhookUrlRefusal(url: string, allowance: PrivateAddressAllowance): Promise<string | undefined> {
  if (allowance === 'all') return undefined;
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      return undefined;
    }
  }
  for (const address of addresses) {
    const kind = classifyAddress(address);
    if (!allowed(kind, allowance)) {
      return `resolves to ${address}, a ${kind} address, which this deployment does not call (WEBHOOK_ALLOW_PRIVATE_ADDRESSES=${allowance})`;
    }
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
      const refused = addresses.find((a) => !allowed(classifyAddress(a.address), allowance));
      if (refused) {
        const denial: NodeJS.ErrnoException = new Error(
          `${hostname} resolves to ${refused.address}, a ${classifyAddress(refused.address)} address, which this deployment does not call`,
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
