import { BlockList, isIP } from 'node:net';

/**
 * Addresses a URL configured by an administrator must not make the service call (SSRF): loopback,
 * link-local (169.254.169.254 is the cloud metadata service), private and shared ranges, and the
 * other special-purpose ranges that no public host has (IANA's special-purpose registries).
 */
const IPV4_RANGES: readonly [string, number][] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];
const IPV6_RANGES: readonly [string, number][] = [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

const ipv4 = new BlockList();
for (const [network, prefix] of IPV4_RANGES) ipv4.addSubnet(network, prefix, 'ipv4');
const ipv6 = new BlockList();
for (const [network, prefix] of IPV6_RANGES) ipv6.addSubnet(network, prefix, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (a trailing dotted quad becomes two groups). */
function groupsOf(address: string): number[] {
  let text = address;
  const quad = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const start = parse(head);
  const end = tail === undefined ? [] : parse(tail);
  return [...start, ...new Array<number>(8 - start.length - end.length).fill(0), ...end];
}

const dotted = (high: number, low: number): string => [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');

/**
 * The IPv4 address an IPv6 address carries, where reaching it would reach that IPv4 host: mapped
 * (::ffff:a.b.c.d), compatible (::a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:aabb:ccdd::).
 */
function embeddedIpv4(address: string): string | undefined {
  const g = groupsOf(address);
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && (g5 === 0xffff || g5 === 0)) return dotted(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return dotted(g6, g7);
  if (g0 === 0x2002) return dotted(g1, g2);
  return undefined;
}

/**
 * Whether an address is not a public host's: loopback, link-local, private, or another special range. Anything not an IP address counts as
 * private.
 */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const version = isIP(bare);
  if (version === 4) return ipv4.check(bare, 'ipv4');
  if (version !== 6) return true;
  if (ipv6.check(bare, 'ipv6')) return true;
  const embedded = embeddedIpv4(bare);
  return embedded !== undefined && ipv4.check(embedded, 'ipv4');
}

/** Whether a URL's host is written as a private address (`http://127.0.0.1/…`, `http://[::1]/…`); host names are checked when resolved. */
export function hasPrivateAddressLiteral(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return isIP(host) !== 0 && isPrivateAddress(host);
}

/**
 * Whether an address is inside one of an operator's CIDR ranges (`10.20.0.0/16`, `fd00::/8`): the
 * private addresses a guard lets through anyway. Built once per list of ranges.
 */
export function allowedRanges(ranges: readonly string[]): (address: string) => boolean {
  const allowed = new BlockList();
  for (const range of ranges) {
    const [network = '', prefix = ''] = range.split('/');
    allowed.addSubnet(network, Number(prefix), isIP(network) === 6 ? 'ipv6' : 'ipv4');
  }
  return (address) => {
    const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
    const version = isIP(bare);
    return version !== 0 && allowed.check(bare, version === 6 ? 'ipv6' : 'ipv4');
  };
}
