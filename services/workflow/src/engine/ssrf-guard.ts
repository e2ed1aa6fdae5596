import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent } from 'undici';

/**
 * The SSRF guard of DESIGN.md section 8: outbound requests to customer-supplied URLs may not reach
 * private, loopback, link-local (cloud metadata) or otherwise special addresses. The check runs on
 * the address actually connected to (inside the socket's DNS lookup), so a name that resolves to a
 * public address at validation time and to 10.0.0.1 at request time (DNS rebinding) is refused.
 * The webhook service needs the same guard; this module has no workflow dependencies so it can move
 * to service-kit.
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, incl. 169.254.169.254 metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, incl. broadcast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64 can reach IPv4 private space
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7], // unique local, incl. fd00:ec2::254 metadata
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

export class BlockedAddressError extends Error {
  readonly code = 'E_BLOCKED_ADDRESS';
  constructor(host: string, address: string) {
    super(`refusing to connect to ${host} (${address}): private, loopback, link-local and metadata addresses are not allowed`);
    this.name = 'BlockedAddressError';
  }
}

/** True for addresses a customer URL may not reach. */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1]!, 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return true;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup replacement for sockets: resolves, then refuses blocked addresses. */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const list = addresses as LookupAddress[];
    const bad = list.find((a) => isBlockedAddress(a.address));
    if (bad || list.length === 0) {
      return callback(new BlockedAddressError(hostname, bad?.address ?? 'no address') as NodeJS.ErrnoException, []);
    }
    if (options.all) return callback(null, list);
    return callback(null, list[0]!.address, list[0]!.family);
  });
}

/**
 * An undici dispatcher for customer URLs. With `allowPrivate` (local development and tests,
 * WEBHOOK_ALLOW_PRIVATE_URLS=true) it is a plain agent.
 */
export function createGuardedAgent(allowPrivate: boolean): Agent {
  if (allowPrivate) return new Agent({ connections: 128 });
  return new Agent({ connections: 128, connect: { lookup: guardedLookup as never } });
}

/**
 * Sockets skip the lookup for IP literals, so a URL naming an address directly is checked here
 * before any connection is made.
 */
export function checkUrlTarget(url: URL, allowPrivate: boolean): void {
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && isBlockedAddress(host)) throw new BlockedAddressError(url.hostname, host);
  if (host === 'localhost' || host.endsWith('.localhost')) throw new BlockedAddressError(url.hostname, 'loopback');
}
