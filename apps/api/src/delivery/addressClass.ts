import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * What an address is as far as calling it goes: the public internet, or one of the kinds of the IANA
 * special-purpose registries (ranges named by ipaddr.js's `range()`).
 */
export type AddressKind =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'shared'
  | 'unspecified'
  | 'broadcast'
  | 'multicast'
  | 'unique-local'
  | 'site-local'
  | 'reserved';

/** An IPv6 form that carries an IPv4 address; such an address is the kind of the IPv4 address it carries. */
export type Transition = 'IPv4-mapped' | 'IPv4-translated' | 'IPv4-compatible' | 'NAT64' | '6to4' | 'Teredo';

export interface AddressClass {
  readonly kind: AddressKind;
  /** Set when the kind is that of an IPv4 address embedded in this IPv6 address. */
  readonly via?: Transition;
}

// ipaddr.js names; any other name it gives (documentation, benchmarking, IETF protocol assignments, AS112, AMT,
// 240.0.0.0/4, discard, ORCHID, SRv6, ranges later versions add) is 'reserved', so an unknown range is refused.
const IPV4_KINDS: Readonly<Record<string, AddressKind>> = {
  unicast: 'public',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'shared',
  private: 'private',
};
const IPV6_KINDS: Readonly<Record<string, AddressKind>> = {
  unicast: 'public',
  unspecified: 'unspecified',
  loopback: 'loopback',
  linkLocal: 'link-local',
  multicast: 'multicast',
  uniqueLocal: 'unique-local',
  deprecatedSiteLocal: 'site-local',
};

const v6 = (text: string) => ipaddr.IPv6.parse(text);
const v4 = (bytes: number[]) => ipaddr.IPv4.parse(bytes.join('.'));
const GLOBAL_UNICAST: [ipaddr.IPv6, number] = [v6('2000::'), 3];

/** The IPv6 prefixes that embed IPv4 addresses, and where. `undefined` when the place cannot be told. */
const TRANSITIONS: readonly {
  via: Transition;
  prefix: [ipaddr.IPv6, number];
  embedded: (bytes: number[]) => ipaddr.IPv4[] | undefined;
}[] = [
  // ::ffff:0:0/96 (RFC 4291), ::ffff:0:0:0/96 (RFC 6145), ::/96 (RFC 4291, deprecated): the last 32 bits.
  { via: 'IPv4-mapped', prefix: [v6('::ffff:0:0'), 96], embedded: (b) => [v4(b.slice(12))] },
  { via: 'IPv4-translated', prefix: [v6('::ffff:0:0:0'), 96], embedded: (b) => [v4(b.slice(12))] },
  { via: 'IPv4-compatible', prefix: [v6('::'), 96], embedded: (b) => [v4(b.slice(12))] },
  // 64:ff9b::/96 (RFC 6052): the last 32 bits.
  { via: 'NAT64', prefix: [v6('64:ff9b::'), 96], embedded: (b) => [v4(b.slice(12))] },
  // 64:ff9b:1::/48 (RFC 8215, local use): the network's translator may use any RFC 6052 layout inside it. Read
  // the /96 one (the last 32 bits, the bits between them and the prefix zero); any other cannot be told apart.
  {
    via: 'NAT64',
    prefix: [v6('64:ff9b:1::'), 48],
    embedded: (b) => (b.slice(6, 12).every((byte) => byte === 0) ? [v4(b.slice(12))] : undefined),
  },
  // 2002::/16 (RFC 3056): the 32 bits after the prefix.
  { via: '6to4', prefix: [v6('2002::'), 16], embedded: (b) => [v4(b.slice(2, 6))] },
  // 2001::/32 (RFC 4380): the server's address, then the client's, its bits inverted.
  {
    via: 'Teredo',
    prefix: [v6('2001::'), 32],
    embedded: (b) => [v4(b.slice(4, 8)), v4(b.slice(12).map((byte) => byte ^ 0xff))],
  },
];

function classifyIPv4(ip: ipaddr.IPv4): AddressKind {
  return IPV4_KINDS[ip.range()] ?? 'reserved';
}

/** Of several embedded addresses, the one that keeps the most out: any non-public kind but loopback, then loopback. */
function strictest(kinds: AddressKind[]): AddressKind {
  return kinds.find((k) => k !== 'public' && k !== 'loopback') ?? kinds.find((k) => k === 'loopback') ?? 'public';
}

function classifyIPv6(ip: ipaddr.IPv6): AddressClass {
  const range = ip.range();
  // :: and ::1 fall inside ::/96 but are IPv6's own unspecified and loopback addresses.
  if (range === 'unspecified' || range === 'loopback') return { kind: IPV6_KINDS[range] as AddressKind };
  for (const transition of TRANSITIONS) {
    if (!ip.match(transition.prefix)) continue;
    const embedded = transition.embedded(ip.toByteArray());
    if (!embedded) return { kind: 'reserved', via: transition.via };
    return { kind: strictest(embedded.map(classifyIPv4)), via: transition.via };
  }
  const kind = IPV6_KINDS[range] ?? 'reserved';
  // Outside 2000::/3 IANA has allocated no global unicast space: whatever ipaddr.js does not name there is reserved.
  return kind === 'public' && !ip.match(GLOBAL_UNICAST) ? { kind: 'reserved' } : { kind };
}

/**
 * An IPv6 address with a dotted IPv4 tail written in hexadecimal: ipaddr.js reads `::a.b.c.d` (IPv4-compatible)
 * as `::ffff:a.b.c.d` (IPv4-mapped).
 */
function hexTail(address: string): string {
  return address.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)(?=%|$)/, (_, a, b, c, d) =>
    [(Number(a) << 8) | Number(b), (Number(c) << 8) | Number(d)].map((n) => n.toString(16)).join(':'),
  );
}

/** The kind of an IPv4 or IPv6 address (as `dns.lookup` gives it or a URL's host holds it). */
export function classifyAddress(address: string): AddressClass {
  const family = isIP(address);
  if (family === 4) return { kind: classifyIPv4(ipaddr.IPv4.parse(address)) };
  if (family === 6) return classifyIPv6(ipaddr.IPv6.parse(hexTail(address)));
  throw new TypeError('not an IP address');
}

const KIND_NAMES: Readonly<Record<Exclude<AddressKind, 'public'>, string>> = {
  loopback: 'a loopback address',
  private: 'a private address',
  'link-local': 'a link-local address',
  shared: 'a shared (carrier-grade NAT) address',
  unspecified: 'an unspecified ("this network") address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  'unique-local': 'a unique-local address',
  'site-local': 'a site-local address',
  reserved: 'a reserved or special-purpose address',
};

/**
 * The class in words, never the address itself ("a link-local address, embedded in a NAT64 IPv6 address"): a
 * refusal shown to a client must not tell it which internal address a name resolves to.
 */
export function describeAddressClass({ kind, via }: AddressClass): string {
  const name = kind === 'public' ? 'a public address' : KIND_NAMES[kind];
  if (!via) return name;
  return `${name}, embedded in ${via.startsWith('IPv4') ? 'an' : 'a'} ${via} IPv6 address`;
}
