import { definedFields, InMemoryTenantRecords } from '@agentplatform/testing/in-memory';
import type { Agent } from '../domain/agent.js';
import type { MemoryItem } from '../domain/memory.js';
import type { EmbeddingProvider } from '../embeddings/embedding-provider.js';
import type { AgentChanges, BumpedAgent } from '../persistence/agent.repository.js';
import type { MemoryChanges } from '../persistence/memory.repository.js';
import type { IndexChange, MemoryIndexCache } from '../search/memory-index-cache.js';
import type { EmbeddingQueue } from '../use-cases/deps.js';
import type { AgentStore, MemoryStore, SearchIndex } from '../use-cases/memory-ports.js';

/* The memory side's ports in memory: agents, items, the search index and the embedding backlog. */

const newestFirst = <T extends { id: string }>(a: T, b: T) => b.id.localeCompare(a.id);
/** One page of a list, as the repositories' skip and limit give it. */
export const page = <T>(all: T[], skip: number, limit: number) => all.slice(skip, skip + limit);

/** Agents in memory, tenant-scoped like the mongoose repository. */
export class InMemoryAgents extends InMemoryTenantRecords<Agent> implements AgentStore {
  constructor() {
    super((agent) => agent.tenantId);
  }
  async insert(agent: Agent): Promise<void> {
    this.put(agent);
  }
  async list(tenantId: string, filter: { type?: string; status?: string }, skip: number, limit: number) {
    const all = this.of(tenantId)
      .filter((a) => (!filter.type || a.type === filter.type) && (!filter.status || a.status === filter.status))
      .sort(newestFirst);
    return { agents: page(all, skip, limit), total: all.length };
  }
  async update(tenantId: string, id: string, changes: AgentChanges, now: Date): Promise<Agent | undefined> {
    return this.change(tenantId, id, (agent) => ({ ...agent, ...definedFields(changes), updatedAt: now }));
  }
  async memoryVersion(tenantId: string, id: string): Promise<number | undefined> {
    return (await this.find(tenantId, id))?.memoryVersion;
  }
  async bumpMemoryVersion(tenantId: string, id: string): Promise<BumpedAgent | undefined> {
    const bumped = await this.change(tenantId, id, (agent) => ({ ...agent, memoryVersion: agent.memoryVersion + 1 }));
    return bumped && { memoryVersion: bumped.memoryVersion, memoryTypes: [...bumped.memoryTypes] };
  }
}

/** Memory items in memory, tenant-scoped like the mongoose repository. */
export class InMemoryMemories implements MemoryStore {
  readonly byId = new Map<string, MemoryItem>();
  async insertMany(items: MemoryItem[]): Promise<Array<undefined | Error>> {
    return items.map((item) => {
      if (this.byId.has(item.id)) return new Error(`duplicate key ${item.id}`);
      this.byId.set(item.id, structuredClone(item));
      return undefined;
    });
  }
  /** Stores `count` items of the agent directly, as if added before. */
  seed(tenantId: string, agentId: string, count: number): void {
    const now = new Date();
    for (let i = 0; i < count; i++) {
      const id = `mem_seed_${this.byId.size}`;
      this.byId.set(id, {
        id,
        tenantId,
        agentId,
        memoryType: 'semantic',
        content: `old ${i}`,
        metadata: {},
        mergedFrom: [],
        createdAt: now,
        updatedAt: now,
      });
    }
  }
  async deleteIds(tenantId: string, ids: string[]): Promise<number> {
    const gone = ids.filter((id) => this.byId.get(id)?.tenantId === tenantId);
    for (const id of gone) this.byId.delete(id);
    return gone.length;
  }
  async find(tenantId: string, id: string): Promise<MemoryItem | undefined> {
    const item = this.byId.get(id);
    return item?.tenantId === tenantId ? structuredClone(item) : undefined;
  }
  async list(tenantId: string, filter: { agentId?: string; memoryType?: string }, skip: number, limit: number) {
    const all = [...this.byId.values()]
      .filter(
        (m) =>
          m.tenantId === tenantId &&
          (!filter.agentId || m.agentId === filter.agentId) &&
          (!filter.memoryType || m.memoryType === filter.memoryType),
      )
      .sort(newestFirst);
    return { items: page(all, skip, limit).map((m) => structuredClone(m)), total: all.length };
  }
  async loadAgent(tenantId: string, agentId: string): Promise<MemoryItem[]> {
    return this.ofAgent(tenantId, agentId).map((m) => structuredClone({ ...m, mergedFrom: [] }));
  }
  async count(tenantId: string, agentId: string): Promise<number> {
    return this.ofAgent(tenantId, agentId).length;
  }
  mergeInto: MemoryStore['mergeInto'] = async (tenantId, keptId, metadata, absorbed, now) => {
    const kept = this.byId.get(keptId);
    if (kept?.tenantId === tenantId) {
      const merged = absorbed.map((a) => ({
        id: a.id,
        content: a.content,
        metadata: a.metadata,
        createdAt: a.createdAt,
      }));
      this.byId.set(keptId, { ...kept, metadata, updatedAt: now, mergedFrom: [...kept.mergedFrom, ...merged] });
    }
    await this.deleteIds(
      tenantId,
      absorbed.map((a) => a.id),
    );
  };
  /** Gives the agent's items without a vector of `embedder` one, as the embedding backlog does. */
  async embedPending(tenantId: string, agentId: string, embedder: EmbeddingProvider): Promise<number> {
    const pending = this.ofAgent(tenantId, agentId).filter((m) => m.embedding?.provider !== embedder.id);
    const vectors = await embedder.embed(pending.map((m) => m.content));
    pending.forEach((m, i) => {
      const vector = vectors[i]!;
      this.byId.set(m.id, { ...m, embedding: { provider: embedder.id, dimension: vector.length, vector } });
    });
    return pending.length;
  }
  private ofAgent(tenantId: string, agentId: string): MemoryItem[] {
    return [...this.byId.values()].filter((m) => m.tenantId === tenantId && m.agentId === agentId);
  }
  async update(tenantId: string, id: string, changes: MemoryChanges, now: Date): Promise<MemoryItem | undefined> {
    const item = await this.find(tenantId, id);
    if (!item) return undefined;
    const updated: MemoryItem = { ...item, ...definedFields(changes), updatedAt: now };
    if (changes.content !== undefined) delete updated.embedding;
    this.byId.set(id, updated);
    return structuredClone(updated);
  }
  async delete(tenantId: string, id: string): Promise<MemoryItem | undefined> {
    const item = await this.find(tenantId, id);
    if (item) this.byId.delete(id);
    return item;
  }
  /** Nothing to open: deletes here look at every item anyway. */
  openAgent(): Promise<void> {
    return Promise.resolve();
  }
  async deleteAgent(tenantId: string, agentId: string): Promise<number> {
    const gone = [...this.byId.values()].filter((m) => m.tenantId === tenantId && m.agentId === agentId);
    for (const m of gone) this.byId.delete(m.id);
    return gone.length;
  }
}

/**
 * The search index cache's port: the versions and changes it is told of, passed on to a real
 * cache over the in-memory items when one is given (searches need it).
 */
export class RecordingIndex implements SearchIndex {
  readonly applied: Array<{ agentId: string; version: number; upsert: string[]; remove: string[] }> = [];
  readonly dropped: string[] = [];
  constructor(private readonly cache?: MemoryIndexCache) {}
  get(tenantId: string, agentId: string, version: number) {
    if (!this.cache) throw new Error('RecordingIndex was built without a cache to search');
    return this.cache.get(tenantId, agentId, version);
  }
  apply(tenantId: string, agentId: string, version: number, change: IndexChange) {
    this.applied.push({
      agentId,
      version,
      upsert: (change.upsert ?? []).map((m) => m.id),
      remove: change.remove ?? [],
    });
    this.cache?.apply(tenantId, agentId, version, change);
  }
  drop(tenantId: string, agentId: string): void {
    this.dropped.push(agentId);
    this.cache?.drop(tenantId, agentId);
  }
}

/**
 * The embedding backlog's port: how often it was woken and drained. Given the items and an
 * embedder, a drain embeds the agent's waiting items as the real backlog does.
 */
export class CountingBacklog implements EmbeddingQueue {
  kicks = 0;
  readonly drained: string[] = [];
  constructor(private readonly embedding?: { memories: InMemoryMemories; embedder: EmbeddingProvider }) {}
  kick(): void {
    this.kicks += 1;
  }
  async drainAgent(tenantId: string, agentId: string): Promise<void> {
    this.drained.push(agentId);
    await this.embedding?.memories.embedPending(tenantId, agentId, this.embedding.embedder);
  }
}
