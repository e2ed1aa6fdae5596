import type { Usage } from '../domain/chat.js';
import type { Dispatcher } from 'undici';
import { postToProvider, ProviderError } from '../http/provider-call.js';
import type { LlmMessage, LlmProvider, LlmRequest, LlmResult, LlmToolCall } from './llm-provider.js';
import { countChatTokens, countTokens } from './tokenizer.js';

export interface OpenAiChatOptions {
  /** e.g. `https://api.openai.com/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  apiKey?: string;
  defaultModel: string;
  timeoutMs: number;
  retries: number;
  /** The outbound agent (service-kit's createGuardedAgent) the calls go through. */
  dispatcher: Dispatcher;
}

interface OpenAiUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
}

interface WireToolCall {
  index?: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

interface Completion {
  model?: string;
  choices?: Array<{
    /** `length`: the reply reached max_tokens and was cut there. */
    finish_reason?: string | null;
    message?: { content?: string | null; tool_calls?: WireToolCall[] | null };
    delta?: { content?: string | null; tool_calls?: WireToolCall[] | null };
  }>;
  usage?: OpenAiUsage | null;
  error?: { message?: string };
}

/** What one answer of the provider said. */
interface Read {
  content: string;
  model: string;
  usage?: Usage;
  toolCalls?: LlmToolCall[];
  truncated: boolean;
}

/** Our messages in the OpenAI wire format (tool calls and tool results included). */
function wireMessage(message: LlmMessage): Record<string, unknown> {
  if (message.role === 'tool') {
    return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
  if (message.role === 'assistant' && message.toolCalls?.length) {
    return {
      role: 'assistant',
      content: message.content || null,
      tool_calls: message.toolCalls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: c.arguments },
      })),
    };
  }
  return { role: message.role, content: message.content };
}

function toToolCalls(calls: WireToolCall[] | null | undefined): LlmToolCall[] | undefined {
  const out = (calls ?? [])
    .filter((c) => c.function?.name)
    .map((c, i) => ({ id: c.id || `call_${i}`, name: c.function!.name!, arguments: c.function!.arguments ?? '' }));
  return out.length > 0 ? out : undefined;
}

function toUsage(usage: OpenAiUsage): Usage {
  const promptTokens = usage.prompt_tokens ?? 0;
  const completionTokens = usage.completion_tokens ?? 0;
  return { promptTokens, completionTokens, totalTokens: usage.total_tokens ?? promptTokens + completionTokens };
}

/**
 * OpenAI-compatible chat completions (OpenAI, vLLM, Ollama, llama.cpp server, LM Studio...).
 * Usage comes from the provider's answer; a server that reports none (some local servers when
 * streaming) is counted with the cl100k_base tokenizer instead, so credits are still charged.
 */
export class OpenAiChatProvider implements LlmProvider {
  readonly name = 'openai-compatible';
  private readonly url: string;

  constructor(private readonly options: OpenAiChatOptions) {
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  }

  modelFor(requested?: string): string {
    return requested ?? this.options.defaultModel;
  }

  async complete(request: LlmRequest, onDelta?: (text: string) => void): Promise<LlmResult> {
    const model = this.modelFor(request.model);
    const body = {
      model,
      messages: request.messages.map(wireMessage),
      temperature: request.temperature,
      max_tokens: request.maxTokens,
      ...(request.tools?.length
        ? {
            tools: request.tools.map((t) => ({
              type: 'function',
              function: { name: t.name, description: t.description, parameters: t.parameters },
            })),
            ...(request.toolChoice ? { tool_choice: request.toolChoice } : {}),
          }
        : {}),
      ...(onDelta ? { stream: true, stream_options: { include_usage: true } } : {}),
    };
    const options = {
      apiKey: this.options.apiKey,
      timeoutMs: this.options.timeoutMs,
      retries: this.options.retries,
      accept: onDelta ? 'text/event-stream' : 'application/json',
      signal: request.signal,
    };
    const response = await postToProvider(this.url, body, options, this.options.dispatcher);
    try {
      const streamed = onDelta && String(response.headers['content-type'] ?? '').includes('text/event-stream');
      const result = streamed ? await this.readStream(response, model, onDelta) : await this.readJson(response, model);
      if (onDelta && !streamed && result.content) onDelta(result.content);
      return {
        content: result.content,
        model: result.model,
        usage: result.usage ?? this.count(request, result.content),
        ...(result.toolCalls ? { toolCalls: result.toolCalls } : {}),
        ...(result.truncated ? { truncated: true } : {}),
      };
    } catch (error) {
      if (error instanceof ProviderError) throw error;
      throw new ProviderError(`chat completions: ${(error as Error).message}`);
    } finally {
      if (!response.body.destroyed) response.body.destroy();
    }
  }

  private count(request: LlmRequest, content: string): Usage {
    const promptTokens =
      countChatTokens(request.messages) + (request.tools?.length ? countTokens(JSON.stringify(request.tools)) : 0);
    const completionTokens = countTokens(content);
    return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
  }

  private async readJson(response: Dispatcher.ResponseData, model: string): Promise<Read> {
    const json = (await response.body.json()) as Completion;
    if (json.error) throw new ProviderError(`chat completions: ${json.error.message ?? 'error'}`);
    const message = json.choices?.[0]?.message;
    const toolCalls = toToolCalls(message?.tool_calls);
    const content = message?.content ?? (toolCalls ? '' : undefined);
    if (typeof content !== 'string')
      throw new ProviderError('chat completions: answer without choices[0].message.content');
    return {
      content,
      model: json.model ?? model,
      usage: json.usage ? toUsage(json.usage) : undefined,
      toolCalls,
      truncated: json.choices?.[0]?.finish_reason === 'length',
    };
  }

  /** Reads `data: {...}` lines until `data: [DONE]` or the end of the stream. */
  private async readStream(
    response: Dispatcher.ResponseData,
    model: string,
    onDelta: (text: string) => void,
  ): Promise<Read> {
    const decoder = new TextDecoder();
    let buffer = '';
    let content = '';
    let usage: Usage | undefined;
    let answeredModel = model;
    let truncated = false;
    // Streamed tool calls arrive in pieces keyed by index: the first names it, later ones add arguments.
    const calls = new Map<number, WireToolCall & { function: { name?: string; arguments: string } }>();
    const finish = () => ({
      content,
      model: answeredModel,
      usage,
      truncated,
      toolCalls: toToolCalls([...calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c)),
    });
    const handleLine = (line: string): boolean => {
      if (!line.startsWith('data:')) return false;
      const data = line.slice(5).trim();
      if (data === '[DONE]') return true;
      if (data === '') return false;
      const chunk = JSON.parse(data) as Completion;
      if (chunk.error) throw new ProviderError(`chat completions: ${chunk.error.message ?? 'error'}`);
      if (chunk.model) answeredModel = chunk.model;
      if (chunk.usage) usage = toUsage(chunk.usage);
      if (chunk.choices?.[0]?.finish_reason === 'length') truncated = true;
      for (const part of chunk.choices?.[0]?.delta?.tool_calls ?? []) {
        const index = part.index ?? 0;
        const call = calls.get(index) ?? { function: { arguments: '' } };
        if (part.id) call.id = part.id;
        if (part.function?.name) call.function.name = part.function.name;
        if (part.function?.arguments) call.function.arguments += part.function.arguments;
        calls.set(index, call);
      }
      const piece = chunk.choices?.[0]?.delta?.content;
      if (piece) {
        content += piece;
        onDelta(piece);
      }
      return false;
    };
    for await (const bytes of response.body) {
      buffer += decoder.decode(bytes as Buffer, { stream: true });
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline).replace(/\r$/, '');
        buffer = buffer.slice(newline + 1);
        // What follows [DONE] is not read: leaving the for-await loop lets the body go.
        if (handleLine(line)) return finish();
      }
    }
    handleLine(buffer.trim());
    return finish();
  }
}
