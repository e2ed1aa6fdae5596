import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import type { Agent, Dispatcher, buildConnector } from 'undici';
import { undici } from './lazy-undici.js';

/**
 * The SSRF guard of docs/design.md section 8, shared by every outbound request to a customer-supplied
 * URL (webhook deliveries, the workflow http integration). Refused destinations: private,
 * loopback, link-local (which holds the cloud metadata endpoints 169.254.169.254 and
 * fd00:ec2::254), carrier-grade NAT (Alibaba's metadata 100.100.100.200), multicast, reserved and
 * documentation ranges, and the IPv6 forms that embed an IPv4 address (NAT64, 6to4).
 * IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) are checked as the IPv4 address they carry.
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

/** True for an IP address (v4 or v6, brackets allowed) that customer URLs may not reach. */
export function isBlockedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const version = isIP(bare);
  if (version === 4) return blocked.check(bare, 'ipv4');
  if (version === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
    return mapped ? blocked.check(mapped[1]!, 'ipv4') : blocked.check(bare, 'ipv6');
  }
  return false;
}

/** True for a host name that always means this machine or a metadata service. */
export function isBlockedName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return BLOCKED_NAMES.includes(name) || name.endsWith('.localhost') || name.endsWith('.internal');
}

/**
 * A connection refused because its destination is private, loopback, link-local or metadata. The
 * message names only the host the caller gave, never the address it resolved to: refusals end up
 * in delivery logs and API answers, and naming the address would let a caller map the internal
 * network one host name at a time.
 */
export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';

  constructor(host: string) {
    super(`refused: the destination ${host} is not allowed`);
    this.name = 'BlockedAddressError';
  }
}

/** True when an error (or its cause, as undici wraps it) is a refusal of this guard. */
export function isBlockedAddressError(error: unknown): boolean {
  const e = error as { code?: string; cause?: { code?: string } } | undefined;
  return e?.code === 'EBLOCKEDADDRESS' || e?.cause?.code === 'EBLOCKEDADDRESS';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls.connect that resolves the name once, refuses it if any address is
 * blocked, and hands the socket exactly the addresses it checked. The check and the connection
 * use the same answer, so a DNS record that changes in between (rebinding) cannot slip through.
 */
function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const bad = addresses.find((a) => isBlockedAddress(a.address));
    if (bad) return callback(new BlockedAddressError(hostname) as NodeJS.ErrnoException, []);
    if (addresses.length === 0) {
      return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
    }
    if (options.all) return callback(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}

/**
 * An undici connector for customer URLs. With `allowPrivate` (local development and tests) it is
 * undici's own; otherwise IP literals are checked directly (sockets skip `lookup` for them) and
 * names go through `guardedLookup`.
 */
export function guardedConnector(options: {
  allowPrivate: boolean;
  connectTimeoutMs: number;
}): buildConnector.connector {
  if (options.allowPrivate) return undici().buildConnector({ timeout: options.connectTimeoutMs });
  const connect = undici().buildConnector({
    timeout: options.connectTimeoutMs,
    lookup: guardedLookup,
  } as buildConnector.BuildOptions);
  return (connectOptions, callback) => {
    const host = connectOptions.hostname.replace(/^\[|\]$/g, '');
    if ((isIP(host) && isBlockedAddress(host)) || isBlockedName(host)) {
      callback(new BlockedAddressError(host), null);
      return;
    }
    connect(connectOptions, callback);
  };
}

/**
 * An undici dispatcher whose every connection goes through the guard. The agent (and undici with
 * it, about 12 MB) is made on the first request: a replica whose workflows or agents never call
 * out does not hold it (docs/performance.md, idle memory). Only `dispatch`, `close` and `destroy`
 * are offered, which is what undici's `request` and `fetch` use with a `dispatcher` option.
 */
export function createGuardedAgent(options: {
  allowPrivate: boolean;
  connectTimeoutMs?: number;
  /** Connections per origin (a webhook destination's share, WEBHOOK_HOST_CONCURRENCY's pool). */
  connections?: number;
  /** How long an idle keep-alive connection is kept (undici's default: 4 s). */
  keepAliveTimeoutMs?: number;
}): Dispatcher {
  let agent: Agent | undefined;
  const made = () =>
    (agent ??= new (undici().Agent)({
      connections: options.connections ?? 128,
      ...(options.keepAliveTimeoutMs === undefined ? {} : { keepAliveTimeout: options.keepAliveTimeoutMs }),
      connect: guardedConnector({
        allowPrivate: options.allowPrivate,
        connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      }),
    }));
  const lazyAgent: Pick<Dispatcher, 'dispatch' | 'close' | 'destroy'> = {
    dispatch: (dispatchOptions, handler) => made().dispatch(dispatchOptions, handler),
    // Nothing to close before the first request (and nothing loaded for it).
    close: (async () => agent?.close()) as Dispatcher['close'],
    destroy: (async (error?: Error | null) => agent?.destroy(error ?? null)) as Dispatcher['destroy'],
  };
  return lazyAgent as Dispatcher;
}
