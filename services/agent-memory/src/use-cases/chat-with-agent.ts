import { createEvent } from '@agentplatform/events';
import {
  ConflictError,
  DomainError,
  InsufficientCreditsError,
  newId,
  NotFoundError,
  ValidationError,
  type FieldIssue,
} from '@agentplatform/service-kit';
import { LIMITS, type Agent } from '../domain/agent.js';
import { chatCost, type ChatMessage, type Session, type Usage } from '../domain/chat.js';
import { ProviderError } from '../http/post-json.js';
import type { LlmMessage } from '../llm/llm-provider.js';
import { buildPrompt, DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE } from '../llm/prompt.js';
import type { Deps } from './deps.js';
import { storeMemory } from './manage-memories.js';
import { searchMemory } from './search-memory.js';

export interface ChatInput {
  agentId: string;
  message: string;
  sessionId?: string;
}

/** Receives a streamed reply: `start` once the turn is accepted, then each piece of text. */
export interface ChatSink {
  start(info: { messageId: string; sessionId: string; userMessageId: string; model: string }): void;
  delta(text: string): void;
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
}

/** Longest text used as the memory search query for a turn. */
const RETRIEVAL_QUERY_CHARS = 4_000;

function validate(input: ChatInput): string {
  const issues: FieldIssue[] = [];
  const message = input.message ?? '';
  if (message.trim() === '') issues.push({ field: 'message', message: 'must not be empty' });
  else if (message.length > LIMITS.message)
    issues.push({ field: 'message', message: `must be at most ${LIMITS.message} characters` });
  if (issues.length > 0) throw new ValidationError(issues);
  return message;
}

async function retrieve(deps: Deps, agent: Agent, message: string, history: ChatMessage[]) {
  if (deps.settings.chatMemoryTopK === 0) return [];
  // Turns already in the prompt's history are not repeated as episodic memories.
  const inHistory = new Set(history.map((m) => m.id));
  try {
    return await searchMemory(
      deps,
      agent.tenantId,
      {
        agentId: agent.id,
        query: message.slice(0, RETRIEVAL_QUERY_CHARS),
        topK: deps.settings.chatMemoryTopK,
        minScore: deps.settings.chatMemoryMinScore,
      },
      (doc) => typeof doc.metadata.message_id === 'string' && inHistory.has(doc.metadata.message_id),
    );
  } catch (error) {
    // A chat still answers (from its history) when memory retrieval fails, e.g. embeddings down.
    deps.logger.warn({ err: error, agent_id: agent.id }, 'memory retrieval failed; answering without memories');
    return [];
  }
}

async function charge(
  deps: Deps,
  tenantId: string,
  agent: Agent,
  messageId: string,
  usage: Usage,
  credits: number,
): Promise<boolean> {
  try {
    await deps.credits.charge({
      tenantId,
      amount: credits,
      idempotencyKey: `chat:${messageId}`,
      description: `Chat with agent ${agent.name} (${usage.totalTokens} tokens)`,
    });
    return true;
  } catch (error) {
    const retryable = !(error instanceof DomainError) || ['service_unavailable', 'internal_error'].includes(error.code);
    deps.logger[retryable ? 'warn' : 'error'](
      { err: error, message_id: messageId, credits },
      retryable ? 'chat charge failed; will retry' : 'chat charge refused',
    );
    return !retryable;
  }
}

/**
 * One chat turn (SPEC.md section 4, DESIGN.md sections 5 and 6): checks the agent is active and
 * the tenant has credits, stores the user message (agent.message.created), retrieves the session's
 * recent turns and the most relevant memories, asks the LLM provider, charges the real cost with
 * an idempotency key, stores the reply (agent.message.completed) and, with episodic memory on,
 * the exchange as an episodic memory.
 */
export async function chatWithAgent(
  deps: Deps,
  tenantId: string,
  input: ChatInput,
  sink?: ChatSink,
): Promise<ChatOutcome> {
  const message = validate(input);
  const started = Date.now();
  const agent = input.agentId ? await deps.agents.find(tenantId, input.agentId) : undefined;
  if (!agent) throw new NotFoundError('Agent');
  if (agent.status !== 'active') throw new ConflictError(`Agent is ${agent.status}; only active agents can chat`);
  let session: Session | undefined;
  if (input.sessionId) {
    session = await deps.chats.findSession(tenantId, agent.id, input.sessionId);
    if (!session) throw new NotFoundError('Session');
  }
  if ((await deps.credits.balance(tenantId)) <= 0) throw new InsufficientCreditsError();

  const history = session ? await deps.chats.recentMessages(tenantId, session.id, deps.settings.historyMessages) : [];
  const memories = await retrieve(deps, agent, message, history);

  const now = new Date();
  const isNew = !session;
  const current: Session = session ?? {
    id: newId('ses'),
    tenantId,
    agentId: agent.id,
    title: message.replace(/\s+/g, ' ').trim().slice(0, 80),
    messageCount: 0,
    createdAt: now,
    lastMessageAt: now,
  };
  const userMessage: ChatMessage = {
    id: newId('msg'),
    tenantId,
    agentId: agent.id,
    sessionId: current.id,
    role: 'user',
    content: message,
    createdAt: now,
  };
  await deps.outbox.run(async (dbSession) => {
    if (isNew) await deps.chats.insertSession(current, dbSession);
    await deps.chats.insertMessage(userMessage, dbSession);
    await deps.chats.touchSession(tenantId, current.id, 1, now, dbSession);
    const event = createEvent('agent.message.created', tenantId, {
      agent_id: agent.id,
      conversation_id: current.id,
      message_id: userMessage.id,
      content: message,
    });
    return { result: undefined, events: [event] };
  });

  const messageId = newId('msg');
  const historyMessages: LlmMessage[] = history.map((m) => ({ role: m.role, content: m.content }));
  sink?.start({
    messageId,
    sessionId: current.id,
    userMessageId: userMessage.id,
    model: deps.llm.modelFor(agent.config.model),
  });
  let result;
  try {
    result = await deps.llm.complete(
      {
        model: agent.config.model,
        temperature: agent.config.temperature ?? DEFAULT_TEMPERATURE,
        maxTokens: agent.config.max_tokens ?? DEFAULT_MAX_TOKENS,
        messages: buildPrompt(
          agent,
          historyMessages,
          memories.map((m) => m.item),
          message,
        ),
        context: {
          agentName: agent.name,
          userMessage: message,
          history: historyMessages,
          memories: memories.map((m) => ({ content: m.item.content, score: m.score, memoryType: m.item.memoryType })),
        },
      },
      sink ? (text) => sink.delta(text) : undefined,
    );
  } catch (error) {
    if (error instanceof ProviderError) {
      deps.logger.warn({ err: error, agent_id: agent.id }, 'LLM provider failed');
      throw new DomainError('service_unavailable', `The language model provider failed: ${error.message}`);
    }
    throw error;
  }

  const latencyMs = Date.now() - started;
  const credits = chatCost(result.usage.totalTokens);
  const charged = await charge(deps, tenantId, agent, messageId, result.usage, credits);
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
    latencyMs,
    credits,
    chargePending: !charged,
    createdAt,
  };
  await deps.outbox.run(async (dbSession) => {
    await deps.chats.insertMessage(reply, dbSession);
    await deps.chats.touchSession(tenantId, current.id, 1, createdAt, dbSession);
    const event = createEvent('agent.message.completed', tenantId, {
      agent_id: agent.id,
      conversation_id: current.id,
      message_id: messageId,
      content: result.content,
      tokens_used: result.usage.totalTokens,
      latency_ms: latencyMs,
    });
    return { result: undefined, events: [event] };
  });

  if (agent.memoryTypes.includes('episodic')) {
    // Counted toward the memories quota, never refused: the reply is already the user's.
    await deps.quotas.add(agent.id, 'memories');
    await storeMemory(deps, agent, {
      memoryType: 'episodic',
      content: `User: ${message}\nAssistant: ${result.content}`,
      metadata: { source: 'chat', session_id: current.id, message_id: messageId, user_message_id: userMessage.id },
    }).catch((error) => deps.logger.warn({ err: error, agent_id: agent.id }, 'could not store the episodic memory'));
  }

  return {
    messageId,
    userMessageId: userMessage.id,
    sessionId: current.id,
    content: result.content,
    role: 'assistant',
    model: result.model,
    usage: result.usage,
    createdAt,
    latencyMs,
    credits,
  };
}

/** Charges chats whose charge failed earlier; the idempotency key makes a repeat harmless. */
export async function retryPendingCharges(deps: Deps, batch = 100): Promise<number> {
  let done = 0;
  for (const message of await deps.chats.pendingCharges(batch)) {
    try {
      await deps.credits.charge({
        tenantId: message.tenantId,
        amount: message.credits ?? chatCost(message.usage?.totalTokens ?? 0),
        idempotencyKey: `chat:${message.id}`,
        description: `Chat (${message.usage?.totalTokens ?? 0} tokens)`,
      });
    } catch (error) {
      if (!(error instanceof DomainError) || ['service_unavailable', 'internal_error'].includes(error.code)) break;
      deps.logger.error({ err: error, message_id: message.id }, 'chat charge refused');
    }
    await deps.chats.markCharged(message.tenantId, message.id);
    done++;
  }
  return done;
}
