import { LRUCache } from 'lru-cache';

type Load<V> = () => Promise<V>;

/**
 * What the access guard keeps of identity's answers: lru-cache with a time to live and a size
 * bound (least recently used first, so a flood of one-off credentials cannot push out the ones in
 * use), whose `fetch` shares one load among concurrent lookups of a key (a burst of requests with
 * a new API key makes one identity call) and keeps no failure.
 *
 * On top of it, revocations: `deleteWhere` drops the values a revocation names, and a load that
 * was in flight when any revocation arrived is answered but not kept, since it may have read the
 * state from before it (lru-cache keeps no value whose key was deleted while it loaded: deleting
 * it is how that load is dropped). While `enabled` is false (the revocation feed is not live)
 * nothing is kept at all.
 */
export class RevocableCache<V extends NonNullable<unknown>> {
  private readonly entries: LRUCache<string, V, Load<V>>;
  /** Bumped by every revocation; a load started before it is answered but not kept. */
  private generation = 0;
  /** lru-cache reads a ttl of 0 as "never expires": 0 here means "keep nothing". */
  private readonly keeps: boolean;
  enabled = true;

  constructor(ttlMs: number, maxEntries = 10_000) {
    this.keeps = ttlMs > 0;
    this.entries = new LRUCache<string, V, Load<V>>({
      // Entries counted by maxSize, not max: `max` allocates every slot up front (docs/performance.md).
      maxSize: maxEntries,
      sizeCalculation: () => 1,
      ttl: Math.max(ttlMs, 1),
      // A load whose key a revocation deleted still answers its callers (and is not kept).
      ignoreFetchAbort: true,
      fetchMethod: async (key, _stale, { context: load }) => {
        const generation = this.generation;
        const value = await load();
        if (generation !== this.generation) this.entries.delete(key);
        return value;
      },
    });
  }

  get(key: string, load: Load<V>): Promise<V> {
    if (!this.enabled || !this.keeps) return load();
    return this.entries.forceFetch(key, { context: load });
  }

  /** True when the key has a loaded, unexpired value (no load is started). */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  delete(key: string): void {
    this.generation++;
    this.entries.delete(key);
  }

  /** Drops every loaded value matching `match`; the loads in flight are not kept. */
  deleteWhere(match: (value: V) => boolean): void {
    this.generation++;
    for (const [key, value] of this.entries.entries()) if (match(value)) this.entries.delete(key);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
