import { randomBytes } from 'node:crypto';
import type { Outbox } from '@agentplatform/events';
import { InMemoryOutbox, InMemoryQuotaCounter } from '@agentplatform/testing/in-memory';
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
import { MockAgent } from 'undici';
import type { WorkflowPort, WorkflowRun } from '../clients/workflow.client.js';
import type { ChatStore, TurnWrite } from '../domain/chat-store.js';
import type { ChatMessage, PendingCharge, Session } from '../domain/chat.js';
import { LocalEmbeddingProvider } from '../embeddings/local-embedding.js';
import { LocalResponder } from '../llm/local-responder.js';
import { clientSessionId } from '../persistence/chat.repository.js';
import { GroupedAgentReads } from '../persistence/grouped-agent-reads.js';
import { MemoryWriter } from '../persistence/memory-writer.js';
import { MemoryIndexCache } from '../search/memory-index-cache.js';
import { QueryEmbeddings } from '../search/query-embeddings.js';
import type { McpPort, McpTurnPort } from '../tools/mcp-tools.js';
import type { UseCaseDeps } from '../use-cases/deps.js';
import { createAgent } from '../use-cases/manage-agents.js';
import { CountingBacklog, InMemoryAgents, InMemoryMemories, page, RecordingIndex } from './in-memory-memory.js';

/** Byte order, as MongoDB sorts string ids (ulids and tool message suffixes). */
const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

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
export class InMemoryWorkflowPort implements WorkflowPort {
  readonly workflows = new Set<string>();
  add(tenantId: string, workflowId: string): void {
    this.workflows.add(`${tenantId}/${workflowId}`);
  }
  async exists(tenantId: string, workflowId: string): Promise<boolean> {
    return this.workflows.has(`${tenantId}/${workflowId}`);
  }
  /** A run of a known workflow completes at once with its input as output. */
  async run(input: Parameters<WorkflowPort['run']>[0]): Promise<WorkflowRun> {
    if (!(await this.exists(input.tenantId, input.workflowId))) {
      throw new NotFoundError('Workflow');
    }
    return { executionId: `exe_${this.workflows.size}`, status: 'completed', output: input.input };
  }
}

/** MCP tools with no server reachable: a turn lists no tools and has nothing to close. */
export class NoMcpServers implements McpPort {
  turns = 0;
  turn(): McpTurnPort {
    this.turns += 1;
    return { tools: async () => [], close: async () => undefined };
  }
}

/** Outbound tool requests in memory: none reaches the network (a spec may intercept some). */
function noNetwork(): MockAgent {
  const agent = new MockAgent();
  agent.disableNetConnect();
  return agent;
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
  const index = new RecordingIndex(new MemoryIndexCache(memories, embedder, 64 * 1024 * 1024, logger));
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
      dispatcher: noNetwork(),
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
  const deps: UseCaseDeps = fakes;
  return { fakes, deps };
}

/** The in-memory deps with one assistant of tenant t1, the memory inserts and memory-version bumps spied on. */
export async function depsWithAgent() {
  const { deps, fakes } = inMemoryAgentMemoryDeps();
  const agent = await createAgent(deps, { tenantId: 't1', name: 'Helper', type: 'assistant' });
  const inserts = jest.spyOn(fakes.memories, 'insertMany');
  const bumps = jest.spyOn(fakes.agents, 'bumpMemoryVersion');
  return { deps, fakes, agentId: agent.id, inserts, bumps };
}
