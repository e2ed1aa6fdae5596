import { agentMemoryV1 } from '@agentplatform/contracts/agent-memory-v1';
import { answerEach } from '@agentplatform/service-kit';
import type { Agent, AgentInput } from '../domain/agent.js';
import type { ChatMessage, Session, ToolStep } from '../domain/chat.js';
import { publicGrant } from '../domain/tools.js';
import { memorySummary, type MemoryItem, type ScoredMemory } from '../domain/memory.js';
import { chatWithAgent, type ChatOutcome, type ChatOverrides } from '../use-cases/chat-with-agent.js';
import { consolidateMemory } from '../use-cases/consolidate-memory.js';
import type { CallerScopes } from '../domain/tool-rights.js';
import type { UseCaseDeps } from '../use-cases/deps.js';
import { createAgent, deleteAgent, getAgent, listAgents, updateAgent } from '../use-cases/manage-agents.js';
import { addMemories } from '../use-cases/add-memories.js';
import { addMemory } from '../use-cases/add-memory.js';
import { deleteMemory } from '../use-cases/delete-memory.js';
import { getMemory } from '../use-cases/get-memory.js';
import { listMemories } from '../use-cases/list-memories.js';
import { updateMemory } from '../use-cases/update-memory.js';
import { listMessages, listSessions } from '../use-cases/read-sessions.js';
import { searchMemory } from '../use-cases/search-memory.js';

type Impl = agentMemoryV1.AgentMemoryServiceImplementation;

type StreamEvent = agentMemoryV1.ChatStreamResponse;

const iso = (date: Date) => date.toISOString();

/** The agent as callers see it: without its tenant and memory version, dates as ISO strings. */
function toAgent(agent: Agent): agentMemoryV1.Agent {
  const { tenantId: _tenantId, memoryVersion: _memoryVersion, config, createdAt, updatedAt, ...fields } = agent;
  return {
    ...fields,
    // Tool header values are never returned: grants show their header names.
    config: { ...config, ...(config.tools ? { tools: config.tools.map(publicGrant) } : {}) },
    createdAt: iso(createdAt),
    updatedAt: iso(updatedAt),
  };
}

/** A step shows its output or its error, never both; a missing output is JSON null. */
function toStep({ output, error, ...step }: ToolStep): agentMemoryV1.ToolStep {
  return { ...step, ...(error === undefined ? { output: output ?? null } : { error }) };
}

function toChatResponse({ credits, createdAt, steps, ...outcome }: ChatOutcome): agentMemoryV1.ChatResponse {
  return { ...outcome, creditsCharged: credits, createdAt: iso(createdAt), steps: steps.map(toStep) };
}

/** Absent: a trusted internal caller (agent_memory.proto, CallerRights). */
const callerScopes = (caller: agentMemoryV1.CallerRights | undefined): CallerScopes => caller?.scopes;

function toSession(session: Session): agentMemoryV1.Session {
  return {
    id: session.key,
    agentId: session.agentId,
    messageCount: session.messageCount,
    createdAt: iso(session.createdAt),
    lastMessageAt: iso(session.lastMessageAt),
    title: session.title,
  };
}

function toMessage(message: ChatMessage, sessionKey: string): agentMemoryV1.ChatMessage {
  return {
    id: message.id,
    sessionId: sessionKey,
    role: message.role,
    content: message.content,
    model: message.model ?? '',
    usage: message.usage,
    createdAt: iso(message.createdAt),
    ...(message.step ? { step: toStep(message.step) } : {}),
  };
}

function toMemory(item: MemoryItem): agentMemoryV1.MemoryItem {
  return {
    ...memorySummary(item),
    createdAt: iso(item.createdAt),
    updatedAt: iso(item.updatedAt),
    mergedFrom: item.mergedFrom.map((m) => m.id),
    embeddingProvider: item.embedding?.provider ?? '',
    embeddingDimension: item.embedding?.dimension ?? 0,
  };
}

function toResult({ item, score }: ScoredMemory): agentMemoryV1.SearchResult {
  return { ...memorySummary(item), createdAt: iso(item.createdAt), score };
}

/** What the OpenAI-compatible route adds to a turn (docs/design.md section 11). */
function chatOverrides(request: agentMemoryV1.ChatRequest | agentMemoryV1.ChatStreamRequest): ChatOverrides {
  return {
    context: request.context.map((m) => ({ role: m.role === 'assistant' ? 'assistant' : 'user', content: m.content })),
    instructions: request.instructions,
    temperature: request.temperature,
    maxTokens: request.maxTokens,
  };
}

/**
 * Runs a chat turn and yields its events as they happen. The turn ends with the call: when its
 * deadline passes or the caller goes away, no further paid round runs (the finished ones are
 * charged).
 */
async function* streamChat(
  deps: UseCaseDeps,
  request: agentMemoryV1.ChatStreamRequest,
  signal: AbortSignal,
): AsyncGenerator<StreamEvent> {
  const queue: StreamEvent[] = [];
  let wake: (() => void) | undefined;
  let finished = false;
  let failure: unknown;
  const push = (event: StreamEvent) => {
    queue.push(event);
    wake?.();
  };
  void chatWithAgent(
    deps,
    {
      tenantId: request.tenantId,
      agentId: request.agentId,
      message: request.message,
      sessionId: request.sessionId,
      plan: request.plan,
      caller: callerScopes(request.caller),
      signal,
      overrides: chatOverrides(request),
      noStore: request.noStore,
    },
    {
      start: (info) => push({ event: { $case: 'start', value: info } }),
      delta: (content) => push({ event: { $case: 'delta', value: { content } } }),
      step: (step) => push({ event: { $case: 'step', value: toStep(step) } }),
    },
  )
    .then(
      (outcome) => push({ event: { $case: 'done', value: toChatResponse(outcome) } }),
      (error) => {
        failure = error;
      },
    )
    .finally(() => {
      finished = true;
      wake?.();
    });
  for (;;) {
    const next = queue.shift();
    if (next) {
      yield next;
      continue;
    }
    if (finished) {
      if (failure) throw failure;
      return;
    }
    await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
  }
}

/** The fields a create and an update both carry: the tenant, the caller's rights and the agent's fields. */
function agentInput(
  req: Pick<
    agentMemoryV1.UpdateAgentRequest,
    'tenantId' | 'caller' | 'name' | 'type' | 'status' | 'description' | 'memoryTypes' | 'config'
  >,
): AgentInput & { tenantId: string; caller: CallerScopes } {
  return {
    tenantId: req.tenantId,
    caller: callerScopes(req.caller),
    name: req.name,
    type: req.type,
    status: req.status,
    description: req.description,
    memoryTypes: req.memoryTypes?.values,
    config: req.config,
  };
}

const ADD_MEMORY_MANY = '/agentplatform.agent_memory.v1.AgentMemoryService/AddMemoryMany';
const LIST_AGENTS_MANY = '/agentplatform.agent_memory.v1.AgentMemoryService/ListAgentsMany';
/** A batch item without its request: the use case refuses it as a request without tenant or agent. */
const missingAdd = agentMemoryV1.AddMemoryRequest.fromPartial({});
const missingList = agentMemoryV1.ListAgentsRequest.fromPartial({});

/** One listing (ListAgents, or one item of ListAgentsMany). */
async function listOne(
  deps: UseCaseDeps,
  req: agentMemoryV1.ListAgentsRequest,
): Promise<agentMemoryV1.ListAgentsResponse> {
  const out = await listAgents(deps, req);
  return { agents: out.agents.map(toAgent), total: out.total, page: out.page, perPage: out.perPage };
}

/** One single add (AddMemory, or one item of AddMemoryMany). */
async function addOne(deps: UseCaseDeps, req: agentMemoryV1.AddMemoryRequest): Promise<agentMemoryV1.MemoryItem> {
  return toMemory(await addMemory(deps, req));
}

/** proto <-> use-case mapping only. */
export function agentMemoryService(deps: UseCaseDeps): Impl {
  /**
   * A batch method: each item answered as its single call would answer it (a missing item as an
   * empty request); unexpected failures are logged under the batch method's name.
   */
  const many =
    <Req, Res, C extends string>(valueCase: C, method: string, single: (req: Req) => Promise<Res>, missing: Req) =>
    async (req: { items: Array<{ request: Req | undefined; requestId: string; traceparent: string }> }) => ({
      outcomes: await answerEach(req.items, valueCase, (one) => single(one ?? missing), {
        logger: deps.logger,
        method,
      }),
    });
  return {
    async createAgent(req) {
      return toAgent(await createAgent(deps, { ...agentInput(req), plan: req.plan }));
    },
    async getAgent(req) {
      return toAgent(await getAgent(deps, req));
    },
    listAgents: (req) => listOne(deps, req),
    listAgentsMany: many('listed', LIST_AGENTS_MANY, (one) => listOne(deps, one), missingList),
    async updateAgent(req) {
      return toAgent(await updateAgent(deps, { ...agentInput(req), agentId: req.agentId }));
    },
    async deleteAgent(req) {
      const out = await deleteAgent(deps, req);
      return { deletedMemories: out.memories, deletedSessions: out.sessions, deletedMessages: out.messages };
    },
    async chat(req, context) {
      return toChatResponse(
        await chatWithAgent(deps, {
          tenantId: req.tenantId,
          agentId: req.agentId,
          message: req.message,
          sessionId: req.sessionId,
          plan: req.plan,
          depth: req.depth,
          caller: callerScopes(req.caller),
          signal: context.signal,
          overrides: chatOverrides(req),
          noStore: req.noStore,
        }),
      );
    },
    chatStream(req, context) {
      return streamChat(deps, req, context.signal);
    },
    async listSessions(req) {
      const out = await listSessions(deps, req);
      return { sessions: out.sessions.map(toSession), total: out.total, page: out.page, perPage: out.perPage };
    },
    async listMessages(req) {
      const out = await listMessages(deps, req);
      return {
        messages: out.messages.map((m) => toMessage(m, out.session.key)),
        total: out.total,
        page: out.page,
        perPage: out.perPage,
      };
    },
    addMemory: (req) => addOne(deps, req),
    addMemoryMany: many('added', ADD_MEMORY_MANY, (one) => addOne(deps, one), missingAdd),
    async addMemories(req) {
      const items = await addMemories(deps, {
        tenantId: req.tenantId,
        agentId: req.agentId,
        items: req.items.map((item) => ({
          memoryType: item.memoryType,
          content: item.content,
          metadata: item.metadata,
        })),
        plan: req.plan,
      });
      return { items: items.map(toMemory) };
    },
    async getMemory(req) {
      return toMemory(await getMemory(deps, req));
    },
    async listMemories(req) {
      const out = await listMemories(deps, req);
      return { items: out.items.map(toMemory), total: out.total, page: out.page, perPage: out.perPage };
    },
    async updateMemory(req) {
      return toMemory(await updateMemory(deps, req));
    },
    async deleteMemory(req) {
      await deleteMemory(deps, req);
      return {};
    },
    async searchMemory(req) {
      const results = await searchMemory(deps, { ...req, admit: true });
      return { results: results.map(toResult) };
    },
    async consolidateMemory(req) {
      const out = await consolidateMemory(deps, req);
      return {
        merged: out.merged,
        removed: out.removed,
        remaining: out.remaining,
        groups: out.groups.map((g) => ({ keptId: g.keptId, mergedIds: g.mergedIds })),
      };
    },
  };
}
