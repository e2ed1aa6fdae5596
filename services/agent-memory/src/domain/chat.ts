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
  chargePending?: boolean;
  createdAt: Date;
}

/** DESIGN.md section 5: a chat costs ceil(total_tokens / 1000) credits, at least 1. */
export function chatCost(totalTokens: number): number {
  return Math.max(1, Math.ceil(totalTokens / 1000));
}
