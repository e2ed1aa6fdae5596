import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook may never reach unless private URLs are allowed: private, loopback,
 * link-local (which holds the cloud metadata endpoints 169.254.169.254 and fd00:ec2::254),
 * carrier-grade NAT (Alibaba's metadata 100.100.100.200), multicast, reserved and documentation
 * ranges, and the IPv6 forms that embed an IPv4 address (NAT64, 6to4). IPv4-mapped IPv6
 * addresses (::ffff:a.b.c.d) need no entry: BlockList checks them against the IPv4 rules (and an
 * entry for ::ffff:0:0/96 would block every IPv4 address).
 */
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** Host names that always mean this machine or the cloud metadata service. */
const BLOCKED_NAMES = ['localhost', 'metadata.google.internal', 'metadata', 'instance-data'];

export function isBlockedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const version = isIP(bare);
  if (version === 4) return blocked.check(bare, 'ipv4');
  if (version === 6) return blocked.check(bare, 'ipv6');
  return false;
}

export function isBlockedName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return BLOCKED_NAMES.includes(name) || name.endsWith('.localhost') || name.endsWith('.internal');
}

/** Why a webhook URL is unacceptable, or undefined. Names are checked again, resolved, at connect time. */
export function urlProblem(raw: string, allowPrivate: boolean): string | undefined {
  if (raw.length > 2048) return 'must be at most 2048 characters';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https';
  if (url.username || url.password) return 'must not contain credentials';
  if (!url.hostname) return 'must have a host';
  if (!allowPrivate && (isBlockedAddress(url.hostname) || isBlockedName(url.hostname))) {
    return 'must not point to a private, loopback, link-local or metadata address';
  }
  return undefined;
}
