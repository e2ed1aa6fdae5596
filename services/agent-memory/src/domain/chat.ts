export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface Session {
  id: string;
  tenantId: string;
  agentId: string;
  title: string;
  messageCount: number;
  createdAt: Date;
  lastMessageAt: Date;
}

export interface ChatMessage {
  id: string;
  tenantId: string;
  agentId: string;
  sessionId: string;
  role: 'user' | 'assistant';
  content: string;
  model?: string;
  usage?: Usage;
  latencyMs?: number;
  credits?: number;
  /** The reply is stored but its credit reservation is not settled yet (a retry job settles it). */
  chargePending?: boolean;
  createdAt: Date;
}

/** DESIGN.md section 5: a chat costs ceil(total_tokens / 1000) credits, at least 1. */
export function chatCost(totalTokens: number): number {
  return Math.max(1, Math.ceil(totalTokens / 1000));
}

/**
 * What a chat reserves before it asks the model (DESIGN.md section 5): the cost of the most it can
 * use, its prompt plus the reply's token limit. The model's usage cannot exceed that with the
 * same tokenizer; a provider that counts more is charged the excess as far as the balance covers.
 */
export function chatEstimate(promptTokens: number, maxTokens: number): number {
  return chatCost(promptTokens + maxTokens);
}
