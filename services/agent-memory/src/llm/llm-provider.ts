import type { Usage } from '../domain/chat.js';

export interface LlmToolCall {
  /** The provider's call id, echoed in the tool message that answers it. */
  id: string;
  name: string;
  /** The arguments as the model wrote them (JSON text, not yet checked). */
  arguments: string;
}

export type LlmMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: LlmToolCall[] }
  | { role: 'tool'; content: string; toolCallId: string; name: string };

/** A tool offered to the model: an OpenAI-compatible function. */
export interface LlmTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments (type object). */
  parameters: Record<string, unknown>;
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
  /** Tools the model may call this round; absent or empty: it must answer. */
  tools?: LlmTool[];
  /** `none`: the tools are described but the model must answer (the last round of a turn). */
  toolChoice?: 'none';
  /** The turn ended (its deadline, its caller gone): the call is aborted. */
  signal?: AbortSignal;
}

export interface LlmResult {
  content: string;
  model: string;
  usage: Usage;
  /** The calls the model asked for instead of (or beside) an answer. */
  toolCalls?: LlmToolCall[];
  /** The reply reached `maxTokens` and was cut there (OpenAI's `finish_reason: "length"`). */
  truncated?: boolean;
}

/** One small interface in front of every way of producing a reply. */
export interface LlmProvider {
  readonly name: string;
  /** The model a request will be answered by (reported before a stream starts). */
  modelFor(requested?: string): string;
  /** With `onDelta`, the reply is streamed: each piece of text is passed on as it arrives. */
  complete(request: LlmRequest, onDelta?: (text: string) => void): Promise<LlmResult>;
}
