export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/**
 * A session id a client may choose (docs/design.md section 6): 1 to 128 characters of [A-Za-z0-9._:-].
 * Generated ids (`ses_...`) follow the same rule.
 */
export const SESSION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface Session {
  /** The stored id: the generated id, or `<agent id>/<client's id>` for a client-chosen one. */
  id: string;
  /** The id clients see and send: the generated id, or the client's own id as given. */
  key: string;
  tenantId: string;
  agentId: string;
  title: string;
  messageCount: number;
  createdAt: Date;
  lastMessageAt: Date;
}

/** One tool call of a turn and its result (docs/design.md section 9). */
export interface ToolStep {
  type: 'tool_call';
  tool: string;
  arguments: Record<string, unknown>;
  output?: unknown;
  error?: string;
  durationMs: number;
}

/** One credit reservation of a turn: each model round may add one (docs/design.md section 5). */
export interface ChatReservation {
  operationId: string;
  amount: number;
}

/**
 * Why a turn ended: `stop`, the model answered; `max_tokens`, the reply reached its token limit
 * and was cut there; `insufficient_credits`, the next model round could not be reserved, so the
 * turn ended with the rounds it had run (docs/design.md section 5).
 */
export type StopReason = 'stop' | 'max_tokens' | 'insufficient_credits';

export interface ChatMessage {
  id: string;
  tenantId: string;
  agentId: string;
  /** The session's stored id. */
  sessionId: string;
  role: 'user' | 'assistant' | 'tool';
  content: string;
  /** Tool messages: the call and its result. */
  step?: ToolStep;
  model?: string;
  usage?: Usage;
  latencyMs?: number;
  credits?: number;
  createdAt: Date;
}

/**
 * A turn's charge not settled yet: stored with its reply (or, for a turn that stores no messages,
 * on its own) before the settle, so that a settle identity cannot take now, or a process that
 * dies first, leaves it to the retry job. Settling is idempotent by operation id.
 */
export interface PendingCharge {
  /** The reply's message id. */
  id: string;
  tenantId: string;
  /** What the turn costs. */
  credits: number;
  totalTokens: number;
  /**
   * The turn's reservations, which the settle closes. Absent on replies stored before rounds
   * reserved on their own: their one reservation is `chat:<id>`.
   */
  reservations?: ChatReservation[];
  createdAt: Date;
}

/** docs/design.md section 5: a chat costs ceil(total_tokens / 1000) credits, at least 1. */
export function chatCost(totalTokens: number): number {
  return Math.max(1, Math.ceil(totalTokens / 1000));
}

/**
 * What a chat reserves before it asks the model (docs/design.md section 5): the cost of the most it can
 * use, its prompt plus the reply's token limit. The model's usage cannot exceed that with the
 * same tokenizer; a provider that counts more is charged the excess as far as the balance covers.
 */
export function chatEstimate(promptTokens: number, maxTokens: number): number {
  return chatCost(promptTokens + maxTokens);
}
