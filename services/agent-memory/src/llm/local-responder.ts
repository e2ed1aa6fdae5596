import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { ChatContext, LlmProvider, LlmRequest, LlmResult } from './llm-provider.js';
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

/**
 * The offline responder used when no LLM provider is configured (DESIGN.md section 6): it does not
 * generate language, it answers from what the agent has retrieved (memories, recent turns), and
 * says so by reporting the model `local`. Usage is counted with the cl100k_base BPE, like a
 * hosted model would count the same prompt and reply.
 */
export class LocalResponder implements LlmProvider {
  readonly name = 'local';

  modelFor(): string {
    return 'local';
  }

  async complete(request: LlmRequest, onDelta?: (text: string) => void): Promise<LlmResult> {
    const content = truncateToTokens(localReply(request.context), request.maxTokens);
    if (onDelta) {
      for (const piece of content.match(/\S+\s*|\s+/g) ?? []) {
        onDelta(piece);
        await yieldToLoop();
      }
    }
    const promptTokens = countChatTokens(request.messages);
    const completionTokens = countTokens(content);
    return {
      content,
      model: 'local',
      usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
    };
  }
}
