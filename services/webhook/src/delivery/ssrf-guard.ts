import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { buildConnector } from 'undici';
import { isBlockedAddress, isBlockedName } from '../domain/address-policy.js';

/** A connection refused because its destination is private, loopback, link-local or metadata. */
export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';

  constructor(host: string, address?: string) {
    super(
      address && address !== host
        ? `refused: ${host} resolves to ${address}, a private, loopback, link-local or metadata address`
        : `refused: ${host} is a private, loopback, link-local or metadata address`,
    );
    this.name = 'BlockedAddressError';
  }
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
    if (bad) return callback(new BlockedAddressError(hostname, bad.address) as NodeJS.ErrnoException, []);
    if (addresses.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
    if (options.all) return callback(null, addresses);
    return callback(null, addresses[0].address, addresses[0].family);
  });
}

/**
 * The undici connector of outgoing webhook requests. With `allowPrivate` it is undici's own;
 * otherwise IP literals are checked directly (net skips `lookup` for them) and names go through
 * `guardedLookup`.
 */
export function guardedConnector(options: { allowPrivate: boolean; connectTimeoutMs: number }): buildConnector.connector {
  if (options.allowPrivate) return buildConnector({ timeout: options.connectTimeoutMs });
  const connect = buildConnector({ timeout: options.connectTimeoutMs, lookup: guardedLookup } as buildConnector.BuildOptions);
  return (connectOptions, callback) => {
    const host = connectOptions.hostname.replace(/^\[|\]$/g, '');
    if ((isIP(host) && isBlockedAddress(host)) || isBlockedName(host)) {
      callback(new BlockedAddressError(host), null);
      return;
    }
    connect(connectOptions, callback);
  };
}
