import type { Logger } from '@agentplatform/service-kit';
import { memorySummary, type MemoryItem } from '../domain/memory.js';
import type { EmbeddingProvider } from '../embeddings/embedding-provider.js';
import { MemoryIndex, type IndexableMemory } from './memory-index.js';

export interface IndexChange {
  upsert?: MemoryItem[];
  remove?: string[];
}

const NO_VECTOR = new Float32Array(0);

/** Out-of-order changes held per index before giving up and reloading. */
const MAX_PENDING = 256;

/** Empty when the item has no vector of `provider` yet: it is searchable lexically until then. */
export function indexable(item: MemoryItem, provider: string): IndexableMemory {
  return {
    ...memorySummary(item),
    vector: item.embedding?.provider === provider ? item.embedding.vector : NO_VECTOR,
  };
}

/**
 * Per-replica cache of agents' search indexes, bounded by their estimated heap (`maxBytes`, the
 * least recently searched agents' indexes go first; the index just loaded or written stays), an
 * optimisation only: correctness comes from the
 * agent's `memory_version`, read from the database before every search. Every memory write bumps
 * it after the write, so an index built from a load that began after reading version v holds
 * every write whose bump returned <= v. A replica applies its own writes to its cached index in
 * version order (nothing else happened in between); a write by another replica makes the next
 * search reload the agent's items.
 */
export class MemoryIndexCache {
  private readonly entries = new Map<string, MemoryIndex>();
  private readonly loading = new Map<string, Promise<MemoryIndex>>();
  private readonly pending = new WeakMap<MemoryIndex, Map<number, IndexChange>>();
  /** The cached indexes' estimated heap, as of their last load or write here. */
  private bytes = 0;

  constructor(
    private readonly memories: { loadAgent(tenantId: string, agentId: string): Promise<MemoryItem[]> },
    private readonly embedder: EmbeddingProvider,
    private readonly maxBytes: number,
    private readonly logger: Logger,
  ) {}

  /** The cached indexes' estimated heap. */
  get heldBytes(): number {
    return this.bytes;
  }

  private key(tenantId: string, agentId: string): string {
    return `${tenantId}/${agentId}`;
  }

  /**
   * The agent's index at `version` (read from the agent just before) or later: an index that has
   * applied this replica's writes past `version` holds every write up to it too.
   */
  async get(tenantId: string, agentId: string, version: number): Promise<MemoryIndex> {
    const key = this.key(tenantId, agentId);
    let cached = this.entries.get(key);
    if (cached && cached.version < version) {
      // Under concurrent writes on this replica, the version is often read before the answer to
      // the bump that made it has been applied here: that answer is usually read in the same turn
      // of the event loop. One turn is cheaper than reloading every item of the agent.
      await new Promise<void>((resolve) => setImmediate(resolve));
      cached = this.entries.get(key);
    }
    if (cached && cached.version >= version) {
      // Map order is insertion order: re-inserting keeps the most recently used last.
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached;
    }
    const flightKey = `${key}@${version}`;
    let flight = this.loading.get(flightKey);
    if (!flight) {
      flight = this.load(tenantId, agentId, version).finally(() => this.loading.delete(flightKey));
      this.loading.set(flightKey, flight);
    }
    return flight;
  }

  private async load(tenantId: string, agentId: string, version: number): Promise<MemoryIndex> {
    const started = Date.now();
    const items = await this.memories.loadAgent(tenantId, agentId);
    const index = new MemoryIndex(version, this.embedder.id);
    index.upsertAll(items.map((item) => indexable(item, this.embedder.id)));
    const key = this.key(tenantId, agentId);
    const current = this.entries.get(key);
    // A write applied while this load ran may have moved the cache past `version`: keep the newer.
    if (!current || current.version < version) this.store(key, index);
    this.logger.debug({ agent_id: agentId, items: items.length, ms: Date.now() - started }, 'memory index loaded');
    return index;
  }

  private store(key: string, index: MemoryIndex): void {
    const previous = this.entries.get(key);
    if (previous) {
      this.bytes -= previous.bytes;
      this.entries.delete(key);
    }
    this.entries.set(key, index);
    this.bytes += index.bytes;
    this.evictFor(key);
  }

  /** Drops the least recently used indexes but `key`'s while the cache is over its bound. */
  private evictFor(key: string): void {
    for (const [oldKey, old] of this.entries) {
      if (this.bytes <= this.maxBytes) return;
      if (oldKey === key) continue;
      this.entries.delete(oldKey);
      this.bytes -= old.bytes;
    }
  }

  /**
   * Applies this replica's own write, which the agent's bump numbered `version`. Concurrent writes
   * can finish out of order (bump v+2 seen before v+1): a change ahead of the index waits in a
   * small buffer until the versions before it arrive. A version that never arrives (another
   * replica wrote it) leaves the index behind, and the next search reloads it.
   */
  apply(tenantId: string, agentId: string, version: number, change: IndexChange): void {
    const key = this.key(tenantId, agentId);
    const cached = this.entries.get(key);
    // A version at or below the index's came from a load that already saw the write.
    if (!cached || version <= cached.version) return;
    let pending = this.pending.get(cached);
    if (!pending) this.pending.set(cached, (pending = new Map()));
    pending.set(version, change);
    if (pending.size > MAX_PENDING) {
      this.drop(tenantId, agentId);
      return;
    }
    const before = cached.bytes;
    for (let next = pending.get(cached.version + 1); next; next = pending.get(cached.version + 1)) {
      pending.delete(cached.version + 1);
      for (const id of next.remove ?? []) cached.remove(id);
      for (const item of next.upsert ?? []) cached.upsert(indexable(item, cached.provider));
      cached.version += 1;
    }
    this.bytes += cached.bytes - before;
    this.evictFor(key);
  }

  drop(tenantId: string, agentId: string): void {
    const key = this.key(tenantId, agentId);
    const cached = this.entries.get(key);
    if (!cached) return;
    this.entries.delete(key);
    this.bytes -= cached.bytes;
  }
}
