import { LRUCache } from 'lru-cache';

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

/**
 * The destination a webhook URL sends to, as fair delivery counts it: host and port
 * (`hooks.example.com:443`), whatever the path. An unparsable URL is its own destination (its
 * attempts fail at once anyway).
 */
export function destinationOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname.toLowerCase()}:${parsed.port || DEFAULT_PORTS[parsed.protocol] || ''}`;
  } catch {
    return url;
  }
}

/** Parsed destinations kept by `cachedDestinations`; a webhook's URL is parsed once, not per attempt. */
const CACHE_SIZE = 10_000;

/** `destinationOf` with a bounded memory of the URLs seen (the least recently used forgotten first). */
export function cachedDestinations(): (url: string) => string {
  const known = new LRUCache<string, string>({ max: CACHE_SIZE });
  return (url) => {
    let destination = known.get(url);
    if (destination === undefined) {
      destination = destinationOf(url);
      known.set(url, destination);
    }
    return destination;
  };
}
