import { LRUCache } from 'lru-cache';

interface Entry<V> {
  value: Promise<V>;
  expires: number;
  /** The loaded value once the load succeeded (what `deleteWhere` looks at). */
  settled?: { value: V };
}

/**
 * A small in-process cache with a time to live and a size bound (least recently used entries go
 * first, so a flood of one-off credentials cannot push out the ones in use). Concurrent lookups of one key
 * share a single load, so a burst of requests with a new API key makes one identity call.
 *
 * Revocations drop entries (`deleteWhere`, `clear`); a load that was in flight when one arrived
 * is not kept, since it may have read the state from before the revocation. While `enabled` is
 * false (the revocation feed is not live) nothing is kept at all.
 */
export class TtlCache<V> {
  private readonly entries: LRUCache<string, Entry<V>>;
  /** Bumped by every invalidation; a load started before it is answered but not kept. */
  private generation = 0;
  enabled = true;

  constructor(
    private readonly ttlMs: number,
    maxEntries = 10_000,
  ) {
    this.entries = new LRUCache({ max: maxEntries });
  }

  get(key: string, load: () => Promise<V>): Promise<V> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.expires > now) return hit.value;
    if (this.ttlMs === 0 || !this.enabled) return load();
    const value = load();
    const entry: Entry<V> = { value, expires: now + this.ttlMs };
    const generation = this.generation;
    this.entries.set(key, entry);
    value.then(
      (loaded) => {
        if (generation !== this.generation) this.forget(key, entry);
        else entry.settled = { value: loaded };
      },
      // Failures are not cached: the next request tries again.
      () => this.forget(key, entry),
    );
    return value;
  }

  /** True when the key has a loaded, unexpired value (no load is started). */
  has(key: string): boolean {
    const hit = this.entries.peek(key);
    return hit?.settled !== undefined && hit.expires > Date.now();
  }

  delete(key: string): void {
    this.generation++;
    this.entries.delete(key);
  }

  /** Drops every loaded value matching `match` and every load still in flight. */
  deleteWhere(match: (value: V) => boolean): void {
    this.generation++;
    const doomed = [...this.entries.entries()].filter(([, entry]) => !entry.settled || match(entry.settled.value));
    for (const [key] of doomed) this.entries.delete(key);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  private forget(key: string, entry: Entry<V>): void {
    if (this.entries.peek(key) === entry) this.entries.delete(key);
  }
}
