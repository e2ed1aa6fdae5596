import type { Usage } from '../domain/chat.js';

export interface LlmMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** What the turn is about, for responders that work from the parts rather than the prompt text. */
export interface ChatContext {
  agentName: string;
  userMessage: string;
  /** The session's recent turns, oldest first (without the new message). */
  history: LlmMessage[];
  /** Retrieved memories, most relevant first. */
  memories: Array<{ content: string; score: number; memoryType: string }>;
}

export interface LlmRequest {
  /** The agent's configured model; providers fall back to their default. */
  model?: string;
  temperature: number;
  maxTokens: number;
  /** The full prompt: system (with memories), history, the new user message. */
  messages: LlmMessage[];
  context: ChatContext;
}

export interface LlmResult {
  content: string;
  model: string;
  usage: Usage;
}

/** One small interface in front of every way of producing a reply. */
export interface LlmProvider {
  readonly name: string;
  /** The model a request will be answered by (reported before a stream starts). */
  modelFor(requested?: string): string;
  /** With `onDelta`, the reply is streamed: each piece of text is passed on as it arrives. */
  complete(request: LlmRequest, onDelta?: (text: string) => void): Promise<LlmResult>;
}
