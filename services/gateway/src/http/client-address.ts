import { isIPv4, isIPv6 } from 'node:net';
import type { Context } from 'koa';

/** The IPv6 groups of an address, `::` expanded (an embedded IPv4 tail counts as two groups). */
function ipv6Groups(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const part = (text: string): string[] =>
    text === '' ? [] : text.split(':').flatMap((group) => (isIPv4(group) ? ['0', '0'] : [group]));
  const left = part(head);
  const right = tail === undefined ? [] : part(tail);
  return [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
}

/**
 * The key a per-address limit counts a client by (docs/security.md, "Limits on hostile input"): an IPv4
 * address as it is (an IPv4-mapped IPv6 address included), an IPv6 client by its /64. One
 * subscriber or host usually holds a whole /64, so counting full IPv6 addresses would let a
 * client take a fresh budget with every address it rotates through.
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  const address = ip.split('%')[0]!;
  if (!isIPv6(address)) return ip;
  const prefix = ipv6Groups(address)
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16));
  return `${prefix.join(':')}::/64`;
}

/** The client address of a request as per-address limits count it. */
export function clientAddress(ctx: Context): string {
  return addressKey(ctx.ip);
}
