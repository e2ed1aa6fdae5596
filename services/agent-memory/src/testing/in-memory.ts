import { definedFields, InMemoryOutbox, InMemoryQuotaCounter, InMemoryTenantRecords } from '@agentplatform/testing';
import { createLogger } from '@agentplatform/service-kit';
import type { Agent } from '../domain/agent.js';
import type { MemoryItem } from '../domain/memory.js';
import type { AgentChanges, AgentRepository } from '../persistence/agent.repository.js';
import type { ChatRepository } from '../persistence/chat.repository.js';
import type { MemoryChanges, MemoryRepository } from '../persistence/memory.repository.js';
import type { MemoryIndexCache } from '../search/memory-index-cache.js';
import type { UseCaseDeps } from '../use-cases/deps.js';
import type { EmbeddingBacklog } from '../use-cases/embedding-backlog.js';

const newestFirst = <T extends { id: string }>(a: T, b: T) => b.id.localeCompare(a.id);
const page = <T>(all: T[], skip: number, limit: number) => all.slice(skip, skip + limit);

type AgentStore = Pick<
  AgentRepository,
  'insert' | 'find' | 'count' | 'list' | 'update' | 'bumpMemoryVersion' | 'delete'
>;

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
  async bumpMemoryVersion(tenantId: string, id: string): Promise<number | undefined> {
    const bumped = await this.change(tenantId, id, (agent) => ({ ...agent, memoryVersion: agent.memoryVersion + 1 }));
    return bumped?.memoryVersion;
  }
}

type MemoryStore = Pick<
  MemoryRepository,
  'insert' | 'insertMany' | 'deleteIds' | 'find' | 'list' | 'count' | 'update' | 'delete' | 'deleteAgent'
>;

/** Memory items in memory, tenant-scoped like the mongoose repository. */
export class InMemoryMemories implements MemoryStore {
  readonly byId = new Map<string, MemoryItem>();
  async insert(item: MemoryItem): Promise<void> {
    this.byId.set(item.id, structuredClone(item));
  }
  async insertMany(items: MemoryItem[]): Promise<Array<undefined | Error>> {
    return items.map((item) => {
      if (this.byId.has(item.id)) return new Error(`duplicate key ${item.id}`);
      this.byId.set(item.id, structuredClone(item));
      return undefined;
    });
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
  async count(tenantId: string, agentId: string): Promise<number> {
    return [...this.byId.values()].filter((m) => m.tenantId === tenantId && m.agentId === agentId).length;
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
  async deleteAgent(tenantId: string, agentId: string): Promise<number> {
    const gone = [...this.byId.values()].filter((m) => m.tenantId === tenantId && m.agentId === agentId);
    for (const m of gone) this.byId.delete(m.id);
    return gone.length;
  }
}

/** Chats as agent deletion sees them: how many sessions and messages an agent had. */
export class InMemoryChats implements Pick<ChatRepository, 'deleteAgent'> {
  readonly counts = new Map<string, { sessions: number; messages: number }>();
  async deleteAgent(tenantId: string, agentId: string) {
    const key = `${tenantId}/${agentId}`;
    const counts = this.counts.get(key) ?? { sessions: 0, messages: 0 };
    this.counts.delete(key);
    return counts;
  }
}

/** The search index cache's port: the versions and changes it is told of. */
export class RecordingIndex implements Pick<MemoryIndexCache, 'apply' | 'drop'> {
  readonly applied: Array<{ agentId: string; version: number; upsert: string[]; remove: string[] }> = [];
  readonly dropped: string[] = [];
  apply(_tenantId: string, agentId: string, version: number, change: { upsert?: MemoryItem[]; remove?: string[] }) {
    this.applied.push({
      agentId,
      version,
      upsert: (change.upsert ?? []).map((m) => m.id),
      remove: change.remove ?? [],
    });
  }
  drop(_tenantId: string, agentId: string): void {
    this.dropped.push(agentId);
  }
}

/** The embedding backlog's port: how often it was woken. */
export class CountingBacklog implements Pick<EmbeddingBacklog, 'kick'> {
  kicks = 0;
  kick(): void {
    this.kicks += 1;
  }
}

/** The agent-memory use cases' deps for agents and memories, every port in memory. */
export function inMemoryAgentMemoryDeps() {
  const fakes = {
    agents: new InMemoryAgents(),
    memories: new InMemoryMemories(),
    chats: new InMemoryChats(),
    outbox: new InMemoryOutbox(),
    quotas: new InMemoryQuotaCounter(),
    index: new RecordingIndex(),
    backlog: new CountingBacklog(),
    logger: createLogger('agent-memory', 'silent'),
    settings: {
      lexicalWeight: 0.3,
      consolidateThreshold: 0.9,
      historyMessages: 10,
      chatMemoryTopK: 5,
      chatMemoryMinScore: 0.2,
    },
  };
  // The fakes implement the methods these use cases call (checked above); the repository classes
  // also carry their mongoose internals, which no use case sees.
  return { fakes, deps: fakes as unknown as UseCaseDeps };
}
