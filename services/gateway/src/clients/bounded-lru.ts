import { LRUCache } from 'lru-cache';

/**
 * An LRU cache of at most `maxEntries` entries whose memory grows with what it holds. lru-cache's
 * `max` allocates its slot arrays for every entry up front (16 bytes an entry, 32 with a `ttl`):
 * 4.8 MB of the gateway's idle heap for its two 100,000-entry caches of invalid credentials and
 * client addresses, mostly empty. Each entry counts 1 against `maxSize` instead, which bounds the
 * same number of entries and evicts the least recently used first.
 */
export function boundedLru<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(
  maxEntries: number,
  options: { ttl?: number } = {},
) {
  return new LRUCache<K, V>({ maxSize: maxEntries, sizeCalculation: () => 1, ...options });
}
