import { createEvent } from '@agentplatform/events/catalogue';
import {
  ConflictError,
  DomainError,
  GroupCommit,
  newId,
  NotFoundError,
  traced,
  ValidationError,
  type FieldIssue,
} from '@agentplatform/service-kit';
import { LIMITS, type Agent } from '../domain/agent.js';
import {
  chatCost,
  SESSION_ID,
  type ChatMessage,
  type Session,
  type StopReason,
  type ToolStep,
  type Usage,
} from '../domain/chat.js';
import { missingScope, type CallerScopes } from '../domain/tool-rights.js';
import { grantName, TOOL_LIMITS } from '../domain/tools.js';
import { ProviderError } from '../http/post-json.js';
import type { LlmMessage } from '../llm/llm-provider.js';
import { countChatTokens, countTokens } from '../llm/tokenizer.js';
import { buildPrompt, DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE } from '../llm/prompt.js';
import { agentTools, toolTimeoutMs } from '../tools/agent-tools.js';
import type { IndexedMemory } from '../search/memory-index.js';
import { ToolError, type Tool } from '../tools/tool.js';
import { agentMemory } from './agent-memory.js';
import { settleReply, TurnCredits } from './chat-credits.js';
import type { UseCaseDeps } from './deps.js';
import { storeMemory } from './manage-memories.js';
import { searchMemory } from './search-memory.js';
import { runToolLoop, type LoopResult } from './tool-loop.js';

export interface ChatInput {
  tenantId: string;
  agentId: string;
  message: string;
  sessionId?: string;
  /** The tenant's plan (memories quota of the memory_add tool). */
  plan?: string;
  /**
   * Where this chat runs in a chain of compositions: 0 from a user, a workflow execution's depth
   * when its agent node asks. Workflow tools start their runs one level deeper, so an agent whose
   * workflow asks the agent again ends at the workflow service's nesting limit, not never.
   */
  depth?: number;
  /**
   * The scopes of the key or user that sent the chat: each tool call is checked against them
   * (docs/design.md section 9). Undefined: a trusted internal caller (a workflow's agent node).
   */
  caller?: CallerScopes;
  /** The caller's call (its deadline, or it went away): the turn ends with it. */
  signal?: AbortSignal;
  /**
   * The OpenAI-compatible route (docs/design.md section 11): the caller's own earlier turns, the
   * history when no session is named; its system messages, added after the agent's system prompt;
   * and a temperature and max_tokens within the agent's limits.
   */
  overrides?: ChatOverrides;
}

export interface ChatOverrides {
  context?: Array<{ role: 'user' | 'assistant'; content: string }>;
  instructions?: string[];
  temperature?: number;
  maxTokens?: number;
}

/** Receives a streamed reply: `start` once the turn is accepted, then each piece of text and tool step. */
export interface ChatSink {
  start(info: { messageId: string; sessionId: string; userMessageId: string; model: string }): void;
  delta(text: string): void;
  step?(step: ToolStep): void;
}

export interface ChatOutcome {
  messageId: string;
  userMessageId: string;
  sessionId: string;
  content: string;
  role: 'assistant';
  model: string;
  usage: Usage;
  createdAt: Date;
  latencyMs: number;
  credits: number;
  steps: ToolStep[];
  stopReason: StopReason;
}

/** Longest text used as the memory search query for a turn. */
const RETRIEVAL_QUERY_CHARS = 4_000;

function validate(input: ChatInput): string {
  const issues: FieldIssue[] = [];
  const message = input.message ?? '';
  if (message.trim() === '') issues.push({ field: 'message', message: 'must not be empty' });
  else if (message.length > LIMITS.message)
    issues.push({ field: 'message', message: `must be at most ${LIMITS.message} characters` });
  if (input.sessionId !== undefined && !SESSION_ID.test(input.sessionId))
    issues.push({ field: 'session_id', message: 'must be 1 to 128 characters of [A-Za-z0-9._:-]' });
  const { temperature, maxTokens } = input.overrides ?? {};
  if (temperature !== undefined && !(temperature >= 0 && temperature <= 2))
    issues.push({ field: 'temperature', message: 'must be between 0 and 2' });
  if (maxTokens !== undefined && !(Number.isInteger(maxTokens) && maxTokens >= 1))
    issues.push({ field: 'max_tokens', message: 'must be a positive integer' });
  if (issues.length > 0) throw new ValidationError(issues);
  return message;
}

/*
 * A turn's agent read. Turns of one agent that arrive while a read of it is in flight share the
 * next read, which starts after they all arrived: each turn still sees the agent as of its own
 * call (a paused agent refuses it, its retrieval gets a memory version read after the call), for
 * one round trip per group instead of per turn. The key names the tenant (whose ids never hold a
 * newline), so one tenant's turns never share another's read. One reader per deps (a process
 * builds one; each unit test its own).
 */
const agentReaders = new WeakMap<UseCaseDeps, GroupCommit<{ tenantId: string; agentId: string }, Agent | undefined>>();

function readAgent(deps: UseCaseDeps, tenantId: string, agentId: string): Promise<Agent | undefined> {
  let reader = agentReaders.get(deps);
  if (!reader) {
    reader = new GroupCommit(async (_key, turns) => {
      const agent = await deps.agents.find(turns[0].tenantId, turns[0].agentId);
      return turns.map(() => agent);
    });
    agentReaders.set(deps, reader);
  }
  return reader.submit(`${tenantId}\n${agentId}`, { tenantId, agentId });
}

async function retrieve(deps: UseCaseDeps, agent: Agent, message: string, history: ChatMessage[]) {
  if (deps.settings.chatMemoryTopK === 0) return [];
  // Turns already in the prompt's history are not repeated as episodic memories.
  const inHistory = new Set(history.map((m) => m.id));
  const exclude =
    inHistory.size > 0
      ? (doc: IndexedMemory) => typeof doc.metadata.message_id === 'string' && inHistory.has(doc.metadata.message_id)
      : undefined;
  try {
    return await traced(
      'memory search',
      {
        attributes: { 'agentplatform.agent.id': agent.id, 'agentplatform.memory.top_k': deps.settings.chatMemoryTopK },
      },
      async (span) => {
        const found = await searchMemory(
          deps,
          {
            tenantId: agent.tenantId,
            agentId: agent.id,
            query: message.slice(0, RETRIEVAL_QUERY_CHARS),
            topK: deps.settings.chatMemoryTopK,
            minScore: deps.settings.chatMemoryMinScore,
            memoryVersion: agent.memoryVersion,
          },
          exclude,
        );
        span?.setAttribute('agentplatform.memory.found', found.length);
        return found;
      },
    );
  } catch (error) {
    // A chat still answers (from its history) when memory retrieval fails, e.g. embeddings down.
    deps.logger.warn({ err: error, agent_id: agent.id }, 'memory retrieval failed; answering without memories');
    return [];
  }
}

interface Turn {
  tenantId: string;
  message: string;
  session?: Session;
  /** A client-chosen session id not used yet: the session is created with the turn. */
  newSessionKey?: string;
  userMessageId: string;
  messageId: string;
  prompt: LlmMessage[];
  maxTokens: number;
  temperature: number;
  started: number;
  tools: Tool[];
  /** The turn's reservations, one more before each model round (docs/design.md section 5). */
  credits: TurnCredits;
  /** Tokens of the tools' descriptions, which every round's prompt carries. */
  toolTokens: number;
  /** Ends the turn: its deadline, or its caller gone. */
  signal: AbortSignal;
}

/** Tool messages sort between the turn's user message and its reply (ids are read in order). */
function toolMessageId(userMessageId: string, n: number): string {
  return `${userMessageId}.t${String(n).padStart(3, '0')}`;
}

/**
 * The reserved part of a turn: stores the user message (agent.message.created), asks the model
 * and stores the reply (agent.message.completed), marked as not yet settled.
 */
async function answer(
  deps: UseCaseDeps,
  agent: Agent,
  turn: Turn,
  sink: ChatSink | undefined,
  context: { historyMessages: LlmMessage[]; memories: Awaited<ReturnType<typeof retrieve>> },
): Promise<{ current: Session; userMessage: ChatMessage; result: LoopResult; reply: ChatMessage }> {
  const { tenantId, message, messageId } = turn;
  const now = new Date();
  const title = message.replace(/\s+/g, ' ').trim().slice(0, 80);
  const isNew = !turn.session && !turn.newSessionKey;
  let current: Session;
  if (turn.session) current = turn.session;
  else if (turn.newSessionKey) {
    current = await deps.chats.openClientSession(tenantId, agent.id, turn.newSessionKey, { title, at: now });
  } else {
    // Created with its first message counted: no separate touch of the new session.
    const id = newId('ses');
    current = { id, key: id, tenantId, agentId: agent.id, title, messageCount: 1, createdAt: now, lastMessageAt: now };
  }
  const userMessage: ChatMessage = {
    id: turn.userMessageId,
    tenantId,
    agentId: agent.id,
    sessionId: current.id,
    role: 'user',
    content: message,
    createdAt: now,
  };
  await deps.chats.storeTurn(deps.outbox, {
    ...(isNew ? { newSession: current } : { touch: { added: 1, at: now } }),
    message: userMessage,
    events: [
      createEvent('agent.message.created', tenantId, {
        agent_id: agent.id,
        conversation_id: current.key,
        message_id: userMessage.id,
        content: message,
      }),
    ],
  });

  sink?.start({
    messageId,
    sessionId: current.key,
    userMessageId: userMessage.id,
    model: deps.llm.modelFor(agent.config.model),
  });
  let stepCount = 0;
  let result: LoopResult;
  try {
    result = await runToolLoop(
      deps.llm,
      {
        model: agent.config.model,
        temperature: turn.temperature,
        maxTokens: turn.maxTokens,
        messages: turn.prompt,
        context: {
          agentName: agent.name,
          userMessage: message,
          history: context.historyMessages,
          memories: context.memories.map((m) => ({
            content: m.item.content,
            score: m.score,
            memoryType: m.item.memoryType,
          })),
        },
      },
      turn.tools,
      {
        maxSteps: agent.config.max_steps ?? TOOL_LIMITS.defaultMaxSteps,
        toolTimeoutMs: toolTimeoutMs(agent),
        logger: deps.logger,
        signal: turn.signal,
        beforeRound: (messages) =>
          turn.credits.tryReserveRound(countChatTokens(messages) + turn.toolTokens, turn.maxTokens),
        afterRound: (usage) => turn.credits.used(usage),
        onDelta: sink ? (text) => sink.delta(text) : undefined,
        // Each call and result is stored in the session as it finishes, then shown to a stream.
        onStep: async (step, toolMessage) => {
          const at = new Date();
          await deps.chats.insertMessage({
            id: toolMessageId(userMessage.id, ++stepCount),
            tenantId,
            agentId: agent.id,
            sessionId: current.id,
            role: 'tool',
            content: toolMessage.content,
            step,
            createdAt: at,
          });
          await deps.chats.touchSession(tenantId, current.id, 1, at);
          sink?.step?.(step);
        },
      },
    );
  } catch (error) {
    if (turn.signal.aborted) throw turn.signal.reason;
    if (error instanceof ProviderError) {
      deps.logger.warn({ err: error, agent_id: agent.id }, 'LLM provider failed');
      throw new DomainError('service_unavailable', `The language model provider failed: ${error.message}`);
    }
    throw error;
  }

  const createdAt = new Date();
  const reply: ChatMessage = {
    id: messageId,
    tenantId,
    agentId: agent.id,
    sessionId: current.id,
    role: 'assistant',
    content: result.content,
    model: result.model,
    usage: result.usage,
    latencyMs: Date.now() - turn.started,
    credits: chatCost(result.usage.totalTokens),
    // Settled right after; if this process dies first, the retry job settles it.
    chargePending: true,
    reservations: turn.credits.reservations,
    createdAt,
  };
  await deps.chats.storeTurn(deps.outbox, {
    message: reply,
    touch: { added: 1, at: createdAt },
    events: [
      createEvent('agent.message.completed', tenantId, {
        agent_id: agent.id,
        conversation_id: current.key,
        message_id: messageId,
        content: result.content,
        tokens_used: result.usage.totalTokens,
        latency_ms: reply.latencyMs!,
        tool_calls: result.steps.length,
      }),
    ],
  });
  return { current, userMessage, result, reply };
}

/**
 * Tools act with their caller's rights (docs/design.md section 9): a tool whose grant needs a scope
 * the caller lacks stays offered (the model sees the agent as configured) but every call of it is
 * an error result for the model, and nothing runs.
 */
function withCallerRights(tools: Tool[], agent: Agent, caller: CallerScopes): Tool[] {
  const refused = new Map<string, string>();
  for (const grant of agent.config.tools ?? []) {
    const scope = missingScope(caller, grant);
    if (scope) refused.set(grantName(grant), scope);
  }
  if (refused.size === 0) return tools;
  return tools.map((tool) => {
    const scope = refused.get(tool.name);
    if (!scope) return tool;
    return {
      ...tool,
      run: async () => {
        throw new ToolError(`refused: the key or user that sent this chat lacks the ${scope} scope this tool needs`);
      },
    };
  });
}

/**
 * The signal that ends a turn: its own deadline (CHAT_TURN_DEADLINE_MS from its start, well inside
 * a reservation's lifetime), or its caller's call ending (its gRPC deadline, or it went away).
 * The reason is the error the turn ends with.
 */
function turnSignal(
  deps: UseCaseDeps,
  started: number,
  caller: AbortSignal | undefined,
): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const limitMs = deps.settings.chatTurnDeadlineMs;
  const timer = setTimeout(
    () =>
      controller.abort(
        new DomainError(
          'service_unavailable',
          `The chat turn ran longer than its limit of ${limitMs} ms and was stopped; ` +
            'the model rounds it finished are charged, the rest of its reservation is released',
        ),
      ),
    Math.max(0, started + limitMs - Date.now()),
  );
  const callerGone = () =>
    controller.abort(new DomainError('service_unavailable', 'The chat was stopped: its caller cancelled or timed out'));
  if (caller?.aborted) callerGone();
  caller?.addEventListener('abort', callerGone, { once: true });
  return {
    signal: controller.signal,
    clear: () => {
      clearTimeout(timer);
      caller?.removeEventListener('abort', callerGone);
    },
  };
}

/**
 * One chat turn (the API reference, docs/design.md sections 5, 6 and 9): checks the agent is
 * active, retrieves the session's recent turns and the most relevant memories, reserves what the
 * first model round can cost (402 when the balance cannot cover it), stores the user message, asks
 * the LLM provider, running the tool calls it makes with the caller's rights and reserving before
 * each further round (a round that cannot be reserved ends the turn: `insufficient_credits`),
 * stores the reply, settles the reservations with the real cost (a failed or stopped turn is
 * charged the rounds it finished) and, with episodic memory on, stores the exchange as an
 * episodic memory. The turn ends by its deadline or its caller's, whichever comes first.
 */
export async function chatWithAgent(deps: UseCaseDeps, input: ChatInput, sink?: ChatSink): Promise<ChatOutcome> {
  const { tenantId } = input;
  const message = validate(input);
  const started = Date.now();
  const agent = input.agentId ? await readAgent(deps, tenantId, input.agentId) : undefined;
  if (!agent) throw new NotFoundError('Agent');
  if (agent.status !== 'active') throw new ConflictError(`Agent is ${agent.status}; only active agents can chat`);
  // A client's own session id is created on first use (docs/design.md section 6).
  const session =
    input.sessionId !== undefined ? await deps.chats.findSession(tenantId, agent.id, input.sessionId) : undefined;
  const newSessionKey = input.sessionId !== undefined && !session ? input.sessionId : undefined;
  const history = session ? await deps.chats.recentMessages(tenantId, session.id, deps.settings.historyMessages) : [];
  const memories = await retrieve(deps, agent, message, history);
  const { overrides = {} } = input;
  // A stored session is the context; without one, the caller's own turns are (as many as a session keeps).
  const historyMessages: LlmMessage[] = session
    ? history.map((m) => ({ role: m.role === 'assistant' ? 'assistant' : 'user', content: m.content }))
    : (overrides.context ?? []).slice(-deps.settings.historyMessages);
  const prompt = buildPrompt(
    agent,
    historyMessages,
    memories.map((m) => m.item),
    message,
    overrides.instructions,
  );
  const agentMaxTokens = agent.config.max_tokens ?? DEFAULT_MAX_TOKENS;
  const maxTokens = Math.min(overrides.maxTokens ?? agentMaxTokens, agentMaxTokens);
  const temperature = overrides.temperature ?? agent.config.temperature ?? DEFAULT_TEMPERATURE;
  const mcp = deps.tools.mcp.turn();
  const ending = turnSignal(deps, started, input.signal);
  try {
    const granted = await agentTools(
      {
        ...deps.tools,
        logger: deps.logger,
        memory: agentMemory(deps, { tenantId, agentId: agent.id, plan: input.plan }),
      },
      agent,
      { tenantId, agentId: agent.id, depth: input.depth },
      mcp,
    );
    ending.signal.throwIfAborted();
    return await reservedTurn(deps, agent, {
      tenantId,
      message,
      session,
      newSessionKey,
      prompt,
      maxTokens,
      temperature,
      started,
      tools: withCallerRights(granted, agent, input.caller),
      signal: ending.signal,
      historyMessages,
      memories,
      sink,
    });
  } finally {
    ending.clear();
    void mcp.close();
  }
}

/**
 * Reserves what the turn's first model round can cost, runs the turn (each further round reserves
 * before it runs), and settles every reservation with the real use of the rounds.
 */
async function reservedTurn(
  deps: UseCaseDeps,
  agent: Agent,
  t: Omit<Turn, 'userMessageId' | 'messageId' | 'credits' | 'toolTokens'> & {
    historyMessages: LlmMessage[];
    memories: Awaited<ReturnType<typeof retrieve>>;
    sink?: ChatSink;
  },
): Promise<ChatOutcome> {
  const { tenantId, message, prompt, maxTokens, sink } = t;

  // The first round is reserved before anything is stored or asked (402 when the balance cannot
  // cover it); the reply settles the reservations, a failure closes them with what finished, a
  // crash leaves them to expire.
  // Ids sort by time, and a session's history is read in id order: the user message's comes first.
  const userMessageId = newId('msg');
  const messageId = newId('msg');
  const toolTokens = t.tools.length
    ? countTokens(JSON.stringify(t.tools.map((x) => [x.name, x.description, x.parameters])))
    : 0;
  const credits = new TurnCredits(deps, tenantId, messageId, `Chat with agent ${agent.name}: reserved`);
  await credits.reserveRound(countChatTokens(prompt) + toolTokens, maxTokens);

  let stored: { current: Session; userMessage: ChatMessage; result: LoopResult; reply: ChatMessage };
  try {
    stored = await answer(
      deps,
      agent,
      {
        tenantId,
        message,
        session: t.session,
        newSessionKey: t.newSessionKey,
        userMessageId,
        messageId,
        prompt,
        maxTokens,
        temperature: t.temperature,
        started: t.started,
        tools: t.tools,
        credits,
        toolTokens,
        signal: t.signal,
      },
      sink,
      { historyMessages: t.historyMessages, memories: t.memories },
    );
  } catch (error) {
    await credits.closeFailed(error instanceof DomainError ? error.code : 'internal error');
    throw error;
  }
  const { current, userMessage, result, reply } = stored;
  if (await settleReply(deps, reply, `Chat with agent ${agent.name}: ${result.usage.totalTokens} tokens`)) {
    await deps.chats.markCharged(tenantId, reply.id);
  }

  if (agent.memoryTypes.includes('episodic') && result.content !== '') {
    // Counted toward the memories quota with the store, never refused: the reply is already the user's.
    await storeMemory(deps, agent, {
      memoryType: 'episodic',
      content: `User: ${message}\nAssistant: ${result.content}`,
      metadata: { source: 'chat', session_id: current.key, message_id: messageId, user_message_id: userMessage.id },
    }).catch((error) => deps.logger.warn({ err: error, agent_id: agent.id }, 'could not store the episodic memory'));
  }

  return {
    messageId,
    userMessageId: userMessage.id,
    sessionId: current.key,
    content: result.content,
    role: 'assistant',
    model: result.model,
    usage: result.usage,
    createdAt: reply.createdAt,
    latencyMs: reply.latencyMs!,
    credits: reply.credits!,
    steps: result.steps,
    stopReason: result.stopReason,
  };
}

/**
 * Settles replies whose settle failed earlier (identity unreachable, or this process died between
 * storing the reply and settling it). Settling is idempotent by operation id.
 */
export async function retryPendingCharges(deps: UseCaseDeps, batch = 100): Promise<number> {
  let done = 0;
  for (const reply of await deps.chats.pendingCharges(batch)) {
    if (!(await settleReply(deps, reply, `Chat (${reply.usage?.totalTokens ?? 0} tokens)`))) break;
    await deps.chats.markCharged(reply.tenantId, reply.id);
    done++;
  }
  return done;
}
