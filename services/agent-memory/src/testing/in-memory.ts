import { randomBytes } from 'node:crypto';
import type { Outbox } from '@agentplatform/events';
import {
  definedFields,
  InMemoryOutbox,
  InMemoryQuotaCounter,
  InMemoryTenantRecords,
} from '@agentplatform/testing/in-memory';
import {
  createLogger,
  InsufficientCreditsError,
  NotFoundError,
  SecretBox,
  DomainError,
  type CreditsClient,
  type ReserveInput,
  type Settlement,
  type SettleInput,
} from '@agentplatform/service-kit';
import type { WorkflowPort } from '../clients/workflow.client.js';
import type { Agent } from '../domain/agent.js';
import type { ChatStore, TurnWrite } from '../domain/chat-store.js';
import type { ChatMessage, PendingCharge, Session } from '../domain/chat.js';
import type { MemoryItem } from '../domain/memory.js';
import type { EmbeddingProvider } from '../embeddings/embedding-provider.js';
import { LocalEmbeddingProvider } from '../embeddings/local-embedding.js';
import { LocalResponder } from '../llm/local-responder.js';
import type { AgentChanges, AgentRepository, BumpedAgent } from '../persistence/agent.repository.js';
import { clientSessionId } from '../persistence/chat.repository.js';
import { GroupedAgentReads } from '../persistence/grouped-agent-reads.js';
import type { MemoryChanges, MemoryRepository } from '../persistence/memory.repository.js';
import { MemoryWriter } from '../persistence/memory-writer.js';
import { MemoryIndexCache, type IndexChange } from '../search/memory-index-cache.js';
import { QueryEmbeddings } from '../search/query-embeddings.js';
import type { McpTools } from '../tools/mcp-tools.js';
import type { EmbeddingQueue, UseCaseDeps } from '../use-cases/deps.js';

const newestFirst = <T extends { id: string }>(a: T, b: T) => b.id.localeCompare(a.id);
/** Byte order, as MongoDB sorts string ids (ulids and tool message suffixes). */
const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const page = <T>(all: T[], skip: number, limit: number) => all.slice(skip, skip + limit);

type AgentStore = Pick<
  AgentRepository,
  'insert' | 'find' | 'memoryVersion' | 'count' | 'list' | 'update' | 'bumpMemoryVersion' | 'delete'
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
  async memoryVersion(tenantId: string, id: string): Promise<number | undefined> {
    return (await this.find(tenantId, id))?.memoryVersion;
  }
  async bumpMemoryVersion(tenantId: string, id: string): Promise<BumpedAgent | undefined> {
    const bumped = await this.change(tenantId, id, (agent) => ({ ...agent, memoryVersion: agent.memoryVersion + 1 }));
    return bumped && { memoryVersion: bumped.memoryVersion, memoryTypes: [...bumped.memoryTypes] };
  }
}

type MemoryStore = Pick<
  MemoryRepository,
  | 'insertMany'
  | 'deleteIds'
  | 'find'
  | 'list'
  | 'loadAgent'
  | 'count'
  | 'update'
  | 'delete'
  | 'deleteAgent'
  | 'mergeInto'
>;

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
  async deleteAgent(tenantId: string, agentId: string): Promise<number> {
    const gone = [...this.byId.values()].filter((m) => m.tenantId === tenantId && m.agentId === agentId);
    for (const m of gone) this.byId.delete(m.id);
    return gone.length;
  }
}

/** Chat sessions and messages in memory, tenant-scoped like the mongoose repository. */
export class InMemoryChats implements ChatStore {
  readonly sessions = new Map<string, Session>();
  readonly messages = new Map<string, ChatMessage>();
  /** Charges not settled yet, by reply id. */
  readonly charges = new Map<string, PendingCharge>();
  /** Sessions and messages an agent had that a spec only counts (agent deletion's answer). */
  readonly counts = new Map<string, { sessions: number; messages: number }>();

  constructor(private readonly outbox: Pick<Outbox, 'run'>) {}

  async findSession(tenantId: string, agentId: string, key: string): Promise<Session | undefined> {
    const session = this.sessions.get(key) ?? this.sessions.get(clientSessionId(agentId, key));
    return session?.tenantId === tenantId && session.agentId === agentId ? { ...session } : undefined;
  }
  async openClientSession(tenantId: string, agentId: string, key: string, init: { title: string; at: Date }) {
    const id = clientSessionId(agentId, key);
    const existing = this.sessions.get(id);
    if (existing && (existing.tenantId !== tenantId || existing.agentId !== agentId)) {
      throw new Error(`duplicate key ${id}`);
    }
    if (!existing) {
      this.sessions.set(id, {
        id,
        key,
        tenantId,
        agentId,
        title: init.title,
        messageCount: 0,
        createdAt: init.at,
        lastMessageAt: init.at,
      });
    }
    return { ...this.sessions.get(id)! };
  }
  private insertMessage(message: ChatMessage): void {
    if (this.messages.has(message.id)) throw new Error(`duplicate key ${message.id}`);
    this.messages.set(message.id, structuredClone(message));
  }
  private touchSession(tenantId: string, id: string, added: number, at: Date): void {
    const session = this.sessions.get(id);
    if (session?.tenantId !== tenantId) return;
    session.messageCount += added;
    if (at > session.lastMessageAt) session.lastMessageAt = at;
  }
  async appendToolMessage(message: ChatMessage): Promise<void> {
    this.insertMessage(message);
    this.touchSession(message.tenantId, message.sessionId, 1, message.createdAt);
  }
  /** One outbox run per step: the session, message, touch and charge are stored with the events, or nothing is. */
  storeTurn(write: TurnWrite): Promise<void> {
    return this.outbox.run(async () => {
      if (write.newSession && this.sessions.has(write.newSession.id)) {
        throw new Error(`duplicate key ${write.newSession.id}`);
      }
      const { message, charge } = write;
      if (message && this.messages.has(message.id)) throw new Error(`duplicate key ${message.id}`);
      if (charge && this.charges.has(charge.id)) throw new Error(`duplicate key ${charge.id}`);
      if (write.newSession) this.sessions.set(write.newSession.id, { ...write.newSession });
      if (message) this.insertMessage(message);
      if (message && write.touch)
        this.touchSession(message.tenantId, message.sessionId, write.touch.added, write.touch.at);
      if (charge) this.charges.set(charge.id, structuredClone(charge));
      return { result: undefined, events: write.events };
    });
  }
  async recentMessages(tenantId: string, sessionId: string, limit: number): Promise<ChatMessage[]> {
    if (limit <= 0) return [];
    return this.ofSession(tenantId, sessionId)
      .filter((m) => m.role !== 'tool')
      .slice(-limit);
  }
  async listSessions(tenantId: string, agentId: string, skip: number, limit: number) {
    const all = [...this.sessions.values()]
      .filter((s) => s.tenantId === tenantId && s.agentId === agentId)
      .sort((a, b) => b.lastMessageAt.getTime() - a.lastMessageAt.getTime() || byId(b, a));
    return { sessions: page(all, skip, limit).map((s) => ({ ...s })), total: all.length };
  }
  async listMessages(tenantId: string, sessionId: string, skip: number, limit: number) {
    const all = this.ofSession(tenantId, sessionId);
    return { messages: page(all, skip, limit), total: all.length };
  }
  async pendingCharges(limit: number): Promise<PendingCharge[]> {
    return [...this.charges.values()]
      .sort(byId)
      .slice(0, limit)
      .map((c) => structuredClone(c));
  }
  async markCharged(tenantId: string, id: string): Promise<void> {
    if (this.charges.get(id)?.tenantId === tenantId) this.charges.delete(id);
  }
  async deleteAgent(tenantId: string, agentId: string) {
    const key = `${tenantId}/${agentId}`;
    const counts = { ...(this.counts.get(key) ?? { sessions: 0, messages: 0 }) };
    this.counts.delete(key);
    for (const [id, s] of this.sessions) {
      if (s.tenantId === tenantId && s.agentId === agentId && this.sessions.delete(id)) counts.sessions += 1;
    }
    for (const [id, m] of this.messages) {
      if (m.tenantId === tenantId && m.agentId === agentId && this.messages.delete(id)) counts.messages += 1;
    }
    return counts;
  }
  private ofSession(tenantId: string, sessionId: string): ChatMessage[] {
    return [...this.messages.values()]
      .filter((m) => m.tenantId === tenantId && m.sessionId === sessionId)
      .sort(byId)
      .map((m) => structuredClone(m));
  }
}

/**
 * Identity's credit ledger as the credits client reaches it: a balance per tenant, reservations
 * by operation id, every call idempotent. `unavailable` makes every call fail as an unreachable
 * identity does.
 */
export class InMemoryCredits implements CreditsClient {
  readonly balances = new Map<string, number>();
  readonly held = new Map<string, { tenantId: string; amount: number }>();
  /** Settled operations and what they charged. */
  readonly settled = new Map<string, number>();
  readonly released = new Set<string>();
  readonly charged = new Map<string, number>();
  unavailable = false;

  balance(tenantId: string): number {
    return this.balances.get(tenantId) ?? 0;
  }
  private reachable(): void {
    if (this.unavailable) throw new DomainError('service_unavailable', 'identity is unreachable');
  }
  async reserve(input: ReserveInput): Promise<void> {
    this.reachable();
    const { tenantId, operationId, amount } = input;
    if (this.held.has(operationId) || this.settled.has(operationId) || this.released.has(operationId)) return;
    if (this.balance(tenantId) < amount) throw new InsufficientCreditsError();
    this.balances.set(tenantId, this.balance(tenantId) - amount);
    this.held.set(operationId, { tenantId, amount });
  }
  async settle(input: SettleInput): Promise<Settlement> {
    this.reachable();
    const { tenantId, operationId, used } = input;
    const done = this.settled.get(operationId);
    if (done !== undefined) return { charged: done, released: false };
    if (this.released.has(operationId)) return { charged: 0, released: true };
    const hold = this.held.get(operationId);
    if (hold?.tenantId !== tenantId) throw new NotFoundError('Reservation');
    // Use beyond the reservation is charged as far as the balance covers it.
    const charged = Math.min(used, hold.amount + this.balance(tenantId));
    this.balances.set(tenantId, this.balance(tenantId) + hold.amount - charged);
    this.held.delete(operationId);
    this.settled.set(operationId, charged);
    return { charged, released: false };
  }
  async release(input: { tenantId: string; operationId: string }): Promise<void> {
    this.reachable();
    const hold = this.held.get(input.operationId);
    if (hold?.tenantId !== input.tenantId) return;
    this.balances.set(input.tenantId, this.balance(input.tenantId) + hold.amount);
    this.held.delete(input.operationId);
    this.released.add(input.operationId);
  }
  async charge(input: { tenantId: string; amount: number; idempotencyKey: string }): Promise<void> {
    this.reachable();
    if (this.charged.has(input.idempotencyKey)) return;
    if (this.balance(input.tenantId) < input.amount) throw new InsufficientCreditsError();
    this.balances.set(input.tenantId, this.balance(input.tenantId) - input.amount);
    this.charged.set(input.idempotencyKey, input.amount);
  }
  async reserveMany(items: ReserveInput[]): Promise<Array<Error | undefined>> {
    this.reachable();
    return Promise.all(
      items.map((item) =>
        this.reserve(item).then(
          () => undefined,
          (error: Error) => error,
        ),
      ),
    );
  }
  async settleMany(items: SettleInput[]): Promise<Array<Error | undefined>> {
    this.reachable();
    return Promise.all(
      items.map((item) =>
        this.settle(item).then(
          () => undefined,
          (error: Error) => error,
        ),
      ),
    );
  }
}

/** The workflow service as agents' tools see it: the workflows each tenant has. */
export class InMemoryWorkflowPort implements Pick<WorkflowPort, 'exists'> {
  readonly workflows = new Set<string>();
  add(tenantId: string, workflowId: string): void {
    this.workflows.add(`${tenantId}/${workflowId}`);
  }
  async exists(tenantId: string, workflowId: string): Promise<boolean> {
    return this.workflows.has(`${tenantId}/${workflowId}`);
  }
}

/** MCP tools with no server reachable: a turn lists no tools and has nothing to close. */
export class NoMcpServers implements Pick<McpTools, 'turn'> {
  turns = 0;
  turn() {
    this.turns += 1;
    return { tools: async () => [], close: async () => undefined } as unknown as ReturnType<McpTools['turn']>;
  }
}

/**
 * The search index cache's port: the versions and changes it is told of, passed on to a real
 * cache over the in-memory items when one is given (searches need it).
 */
export class RecordingIndex implements Pick<MemoryIndexCache, 'get' | 'apply' | 'drop'> {
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

/**
 * The agent-memory use cases' deps, every port in memory; the offline embedding, search index
 * cache and local responder are the real ones (no network).
 */
export function inMemoryAgentMemoryDeps() {
  const logger = createLogger('agent-memory', 'silent');
  const memories = new InMemoryMemories();
  const embedder = new LocalEmbeddingProvider();
  const outbox = new InMemoryOutbox();
  const agents = new InMemoryAgents();
  const quotas = new InMemoryQuotaCounter();
  const index = new RecordingIndex(
    new MemoryIndexCache(memories as unknown as MemoryRepository, embedder, 10_000, logger),
  );
  const backlog = new CountingBacklog({ memories, embedder });
  const fakes = {
    agents,
    chatAgents: new GroupedAgentReads(agents),
    memories,
    memoryWriter: new MemoryWriter({ agents, memories, quotas, index, backlog }),
    chats: new InMemoryChats(outbox),
    outbox,
    quotas,
    index,
    backlog,
    embedder,
    queryEmbeddings: new QueryEmbeddings(embedder, 100, logger),
    llm: new LocalResponder(),
    credits: new InMemoryCredits(),
    tools: {
      workflows: new InMemoryWorkflowPort(),
      box: SecretBox.fromKeyring(`k1:${randomBytes(32).toString('base64')}`),
      mcp: new NoMcpServers(),
    },
    logger,
    settings: {
      lexicalWeight: 0.3,
      consolidateThreshold: 0.9,
      historyMessages: 10,
      chatMemoryTopK: 5,
      chatMemoryMinScore: 0.2,
      chatTurnDeadlineMs: 300_000,
    },
  };
  // The fakes implement the methods these use cases call (checked above); the repository classes
  // also carry their mongoose internals, which no use case sees.
  return { fakes, deps: fakes as unknown as UseCaseDeps };
}
