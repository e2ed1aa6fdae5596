import { createEvent } from '@agentplatform/events/catalogue';
import {
  ConflictError,
  DomainError,
  newId,
  NotFoundError,
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
import type { CallerScopes } from '../domain/tool-rights.js';
import { TOOL_LIMITS } from '../domain/tools.js';
import { ProviderError } from '../http/provider-call.js';
import type { LlmMessage } from '../llm/llm-provider.js';
import { buildPrompt, DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE } from '../llm/prompt.js';
import { countChatTokens, countTokens } from '../llm/tokenizer.js';
import { agentTools, toolTimeoutMs } from '../tools/agent-tools.js';
import type { Tool } from '../tools/tool.js';
import { agentMemory } from './agent-memory.js';
import { withCallerRights } from './caller-rights.js';
import { billTurn, type TurnCredits } from './chat-credits.js';
import type { UseCaseDeps } from './deps.js';
import { storeMemory } from './add-memory.js';
import { recall } from './recall-memories.js';
import { runToolLoop } from './tool-loop.js';
import { turnSignal } from './turn-signal.js';

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
  /**
   * Store no messages and no session (docs/design.md section 11: a sessionless OpenAI-compatible
   * turn, whose context is the request's messages). Credits, events and the memories the agent's
   * memory types keep are as for any turn.
   */
  noStore?: boolean;
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

type Recalled = Awaited<ReturnType<typeof recall>>;

function validate(input: ChatInput): string {
  const issues: FieldIssue[] = [];
  const message = input.message ?? '';
  if (message.trim() === '') issues.push({ field: 'message', message: 'must not be empty' });
  else if (message.length > LIMITS.message)
    issues.push({ field: 'message', message: `must be at most ${LIMITS.message} characters` });
  if (input.sessionId !== undefined && !SESSION_ID.test(input.sessionId))
    issues.push({ field: 'session_id', message: 'must be 1 to 128 characters of [A-Za-z0-9._:-]' });
  if (input.sessionId !== undefined && input.noStore)
    issues.push({ field: 'session_id', message: 'a turn that stores nothing names no session' });
  const { temperature, maxTokens } = input.overrides ?? {};
  if (temperature !== undefined && !(temperature >= 0 && temperature <= 2))
    issues.push({ field: 'temperature', message: 'must be between 0 and 2' });
  if (maxTokens !== undefined && !(Number.isInteger(maxTokens) && maxTokens >= 1))
    issues.push({ field: 'max_tokens', message: 'must be a positive integer' });
  if (issues.length > 0) throw new ValidationError(issues);
  return message;
}

/**
 * One chat turn (the API reference, docs/design.md sections 5, 6, 9 and 11): checks the agent is
 * active, reads the session's recent turns (or takes the caller's own) and the most relevant
 * memories, and runs the turn within its billing (chat-credits.ts: reserved before each model
 * round, 402 when the first cannot be, settled with the real cost). The turn stores the user
 * message, asks the model, running the tool calls it makes with the caller's rights, and stores
 * the reply; with episodic memory on, the exchange becomes an episodic memory. It ends by its
 * deadline or its caller's, whichever comes first.
 */
export async function chatWithAgent(deps: UseCaseDeps, input: ChatInput, sink?: ChatSink): Promise<ChatOutcome> {
  const { tenantId } = input;
  const message = validate(input);
  const started = Date.now();
  const agent = input.agentId ? await deps.chatAgents.find(tenantId, input.agentId) : undefined;
  if (!agent) throw new NotFoundError('Agent');
  if (agent.status !== 'active') throw new ConflictError(`Agent is ${agent.status}; only active agents can chat`);

  // A client's own session id is created on first use (docs/design.md section 6).
  const session =
    input.sessionId !== undefined ? await deps.chats.findSession(tenantId, agent.id, input.sessionId) : undefined;
  const history = session ? await deps.chats.recentMessages(tenantId, session.id, deps.settings.historyMessages) : [];
  const memories = await recall(deps, agent, message, history);
  const { overrides = {} } = input;
  // A stored session is the context; without one, the caller's own turns are (as many as a session keeps).
  const historyMessages: LlmMessage[] = session
    ? history.map((m) => ({ role: m.role === 'assistant' ? 'assistant' : 'user', content: m.content }))
    : (overrides.context ?? []).slice(-deps.settings.historyMessages);
  const agentMaxTokens = agent.config.max_tokens ?? DEFAULT_MAX_TOKENS;
  const turn: Turn = {
    tenantId,
    agent,
    message,
    session,
    newSessionKey: input.sessionId !== undefined && !session ? input.sessionId : undefined,
    store: !input.noStore,
    // Ids sort by time, and a session's history is read in id order: the user message's comes first.
    userMessageId: newId('msg'),
    messageId: newId('msg'),
    prompt: buildPrompt(
      agent,
      historyMessages,
      memories.map((m) => m.item),
      message,
      overrides.instructions,
    ),
    maxTokens: Math.min(overrides.maxTokens ?? agentMaxTokens, agentMaxTokens),
    temperature: overrides.temperature ?? agent.config.temperature ?? DEFAULT_TEMPERATURE,
    started,
    historyMessages,
    memories,
  };

  const mcp = deps.tools.mcp.turn();
  const ending = turnSignal(deps.settings.chatTurnDeadlineMs, started, input.signal);
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
    const tools = withCallerRights(granted, agent, input.caller);
    // Every round's prompt carries the tools' descriptions.
    const toolTokens = tools.length
      ? countTokens(JSON.stringify(tools.map((x) => [x.name, x.description, x.parameters])))
      : 0;
    const done = await billTurn(
      deps,
      {
        tenantId,
        messageId: turn.messageId,
        agentName: agent.name,
        promptTokens: countChatTokens(turn.prompt) + toolTokens,
        maxTokens: turn.maxTokens,
      },
      (credits) => runTurn(deps, turn, { tools, toolTokens, credits, signal: ending.signal }, sink),
    );
    await keepEpisode(deps, turn, done);
    return done.outcome;
  } finally {
    ending.clear();
    void mcp.close();
  }
}

/** A turn as its rules decided it, before anything is stored or asked. */
interface Turn {
  tenantId: string;
  agent: Agent;
  message: string;
  session?: Session;
  /** A client-chosen session id not used yet: the session is created with the turn. */
  newSessionKey?: string;
  /** False: no message and no session is stored (a sessionless OpenAI-compatible turn). */
  store: boolean;
  userMessageId: string;
  messageId: string;
  prompt: LlmMessage[];
  maxTokens: number;
  temperature: number;
  started: number;
  historyMessages: LlmMessage[];
  memories: Recalled;
}

/** What the turn runs with: its tools, its credits and the signal that ends it. */
interface Rounds {
  tools: Tool[];
  toolTokens: number;
  credits: TurnCredits;
  signal: AbortSignal;
}

/** Tool messages sort between the turn's user message and its reply (ids are read in order). */
function toolMessageId(userMessageId: string, n: number): string {
  return `${userMessageId}.t${String(n).padStart(3, '0')}`;
}

/** The session the turn is in: the named one, a client-chosen one created now, or a new one. */
async function openSession(deps: UseCaseDeps, turn: Turn, at: Date): Promise<{ session: Session; isNew: boolean }> {
  const title = turn.message.replace(/\s+/g, ' ').trim().slice(0, 80);
  if (turn.session) return { session: turn.session, isNew: false };
  if (turn.newSessionKey) {
    const opened = await deps.chats.openClientSession(turn.tenantId, turn.agent.id, turn.newSessionKey, { title, at });
    return { session: opened, isNew: false };
  }
  // Created with its first message counted: no separate touch of the new session.
  const id = newId('ses');
  const session = { id, key: id, tenantId: turn.tenantId, agentId: turn.agent.id, title, messageCount: 1 };
  return { session: { ...session, createdAt: at, lastMessageAt: at }, isNew: true };
}

/**
 * The reserved part of a turn: stores the user message (agent.message.created), asks the model
 * and stores the reply (agent.message.completed) with its charge, which the billing settles.
 */
async function runTurn(deps: UseCaseDeps, turn: Turn, rounds: Rounds, sink: ChatSink | undefined) {
  const { tenantId, agent, message, messageId, store } = turn;
  const now = new Date();
  const { session, isNew } = await openSession(deps, turn, now);
  const userMessage: ChatMessage = {
    id: turn.userMessageId,
    tenantId,
    agentId: agent.id,
    sessionId: session.id,
    role: 'user',
    content: message,
    createdAt: now,
  };
  await deps.chats.storeTurn({
    ...(store ? { message: userMessage, ...(isNew ? { newSession: session } : { touch: { added: 1, at: now } }) } : {}),
    events: [
      createEvent('agent.message.created', tenantId, {
        agent_id: agent.id,
        conversation_id: session.key,
        message_id: userMessage.id,
        content: message,
      }),
    ],
  });

  sink?.start({
    messageId,
    sessionId: session.key,
    userMessageId: userMessage.id,
    model: deps.llm.modelFor(agent.config.model),
  });
  let stepCount = 0;
  const result = await runToolLoop(
    deps.llm,
    {
      model: agent.config.model,
      temperature: turn.temperature,
      maxTokens: turn.maxTokens,
      messages: turn.prompt,
      context: {
        agentName: agent.name,
        userMessage: message,
        history: turn.historyMessages,
        memories: turn.memories.map((m) => ({
          content: m.item.content,
          score: m.score,
          memoryType: m.item.memoryType,
        })),
      },
    },
    rounds.tools,
    {
      maxSteps: agent.config.max_steps ?? TOOL_LIMITS.defaultMaxSteps,
      toolTimeoutMs: toolTimeoutMs(agent),
      logger: deps.logger,
      signal: rounds.signal,
      beforeRound: (messages) =>
        rounds.credits.tryReserveRound(countChatTokens(messages) + rounds.toolTokens, turn.maxTokens),
      afterRound: (usage) => rounds.credits.used(usage),
      onDelta: sink ? (text) => sink.delta(text) : undefined,
      // Each call and result is stored in the session as it finishes, then shown to a stream.
      onStep: async (step, toolMessage) => {
        const id = toolMessageId(userMessage.id, ++stepCount);
        if (store) {
          const base = { tenantId, agentId: agent.id, sessionId: session.id, createdAt: new Date() };
          await deps.chats.appendToolMessage({ ...base, id, role: 'tool', content: toolMessage.content, step });
        }
        sink?.step?.(step);
      },
    },
  ).catch((error: unknown) => {
    if (rounds.signal.aborted) throw rounds.signal.reason;
    if (error instanceof ProviderError) {
      deps.logger.warn({ err: error, agent_id: agent.id }, 'LLM provider failed');
      throw new DomainError('service_unavailable', `The language model provider failed: ${error.message}`);
    }
    throw error;
  });

  const createdAt = new Date();
  const latencyMs = Date.now() - turn.started;
  const credits = chatCost(result.usage.totalTokens);
  const reply: ChatMessage = {
    id: messageId,
    tenantId,
    agentId: agent.id,
    sessionId: session.id,
    role: 'assistant',
    content: result.content,
    model: result.model,
    usage: result.usage,
    latencyMs,
    credits,
    createdAt,
  };
  // Settled right after; if that fails or this process dies first, the retry job settles it.
  const charge = {
    id: messageId,
    tenantId,
    credits,
    totalTokens: result.usage.totalTokens,
    reservations: rounds.credits.reservations,
    createdAt,
  };
  await deps.chats.storeTurn({
    ...(store ? { message: reply, touch: { added: 1, at: createdAt } } : {}),
    charge,
    events: [
      createEvent('agent.message.completed', tenantId, {
        agent_id: agent.id,
        conversation_id: session.key,
        message_id: messageId,
        content: result.content,
        tokens_used: result.usage.totalTokens,
        latency_ms: latencyMs,
        tool_calls: result.steps.length,
      }),
    ],
  });
  const outcome: ChatOutcome = {
    messageId,
    userMessageId: userMessage.id,
    sessionId: session.key,
    content: result.content,
    role: 'assistant',
    model: result.model,
    usage: result.usage,
    createdAt,
    latencyMs,
    credits,
    steps: result.steps,
    stopReason: result.stopReason,
  };
  return { charge, outcome };
}

/** With episodic memory on, the exchange is kept as an episodic memory. */
async function keepEpisode(deps: UseCaseDeps, turn: Turn, done: { outcome: ChatOutcome }): Promise<void> {
  const { agent, message } = turn;
  const { outcome } = done;
  if (!agent.memoryTypes.includes('episodic') || outcome.content === '') return;
  // Counted toward the memories quota with the store, never refused: the reply is already the user's.
  await storeMemory(deps, agent, {
    memoryType: 'episodic',
    content: `User: ${message}\nAssistant: ${outcome.content}`,
    metadata: {
      source: 'chat',
      // A turn that stores nothing has no session to point to.
      ...(turn.store ? { session_id: outcome.sessionId } : {}),
      message_id: outcome.messageId,
      user_message_id: outcome.userMessageId,
    },
  }).catch((error) => deps.logger.warn({ err: error, agent_id: agent.id }, 'could not store the episodic memory'));
}
