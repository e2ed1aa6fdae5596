import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { ChatContext, LlmMessage, LlmProvider, LlmRequest, LlmResult, LlmToolCall } from './llm-provider.js';
import { countChatTokens, countTokens, truncateToTokens } from './tokenizer.js';

const MEMORIES_QUOTED = 3;

function shorten(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** The reply text: deterministic, from the retrieved memories first, else from the recent turns. */
export function localReply(context: ChatContext): string {
  // Memories far below the best one are noise next to it: quote only those within half its score.
  const best = context.memories[0]?.score ?? 0;
  const memories = context.memories.filter((m) => m.score >= best / 2).slice(0, MEMORIES_QUOTED);
  if (memories.length === 1) return `From what I remember: ${shorten(memories[0].content, 1_000)}`;
  if (memories.length > 1) {
    return `From what I remember:\n${memories.map((m) => `- ${shorten(m.content, 600)}`).join('\n')}`;
  }
  const lastUser = [...context.history].reverse().find((m) => m.role === 'user');
  if (lastUser) {
    return (
      `I don't have a stored memory that answers this. Earlier in this conversation you said: ` +
      `"${shorten(lastUser.content, 300)}".`
    );
  }
  return (
    `I don't have a stored memory about that yet. Add memories to ${context.agentName} ` +
    `and I will answer from them.`
  );
}

/** The memories a memory_search tool result of this turn returned, if the turn made that call. */
function searchedMemories(messages: LlmMessage[]): ChatContext['memories'] | undefined {
  const results = messages.filter(
    (m): m is Extract<LlmMessage, { role: 'tool' }> => m.role === 'tool' && m.name === 'memory_search',
  );
  if (results.length === 0) return undefined;
  const found: ChatContext['memories'] = [];
  for (const result of results) {
    try {
      const parsed = JSON.parse(result.content) as {
        results?: Array<{ content?: unknown; score?: unknown; memory_type?: unknown }>;
      };
      for (const r of parsed.results ?? []) {
        if (typeof r.content === 'string' && typeof r.score === 'number') {
          found.push({ content: r.content, score: r.score, memoryType: String(r.memory_type ?? 'semantic') });
        }
      }
    } catch {
      // An error result (not JSON results) adds nothing.
    }
  }
  return found.sort((a, b) => b.score - a.score);
}

/**
 * The offline responder used when no LLM provider is configured (docs/design.md section 6): it does not
 * generate language, it answers from what the agent has retrieved (memories, recent turns), and
 * says so by reporting the model `local`. With the memory_search tool offered (docs/design.md section
 * 9) its first round calls it with the user's message, and its answer quotes what the call found.
 * Usage is counted with the cl100k_base BPE, like a hosted model would count the same prompt and
 * reply.
 */
export class LocalResponder implements LlmProvider {
  readonly name = 'local';

  modelFor(): string {
    return 'local';
  }

  async complete(request: LlmRequest, onDelta?: (text: string) => void): Promise<LlmResult> {
    const searched = searchedMemories(request.messages);
    const canSearch = request.toolChoice !== 'none' && request.tools?.some((t) => t.name === 'memory_search');
    if (canSearch && !searched) {
      const call: LlmToolCall = {
        id: 'local_memory_search',
        name: 'memory_search',
        arguments: JSON.stringify({ query: request.context.userMessage.slice(0, 4_000) }),
      };
      const promptTokens = countChatTokens(request.messages);
      const completionTokens = countTokens(call.name) + countTokens(call.arguments);
      return {
        content: '',
        model: 'local',
        usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
        toolCalls: [call],
      };
    }
    const context = searched ? { ...request.context, memories: searched } : request.context;
    const {
      text: content,
      tokens: completionTokens,
      truncated,
    } = truncateToTokens(localReply(context), request.maxTokens);
    if (onDelta) {
      for (const piece of content.match(/\S+\s*|\s+/g) ?? []) {
        onDelta(piece);
        await yieldToLoop();
      }
    }
    const promptTokens = countChatTokens(request.messages);
    return {
      content,
      model: 'local',
      usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
      ...(truncated ? { truncated } : {}),
    };
  }
}
