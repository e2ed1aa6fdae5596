import { traced } from '@agentplatform/service-kit';
import type { Agent } from '../domain/agent.js';
import type { ChatMessage } from '../domain/chat.js';
import type { IndexedMemory } from '../search/memory-index.js';
import type { UseCaseDeps } from './deps.js';
import { searchMemory } from './search-memory.js';

/** Longest text used as the memory search query for a turn. */
const RETRIEVAL_QUERY_CHARS = 4_000;

/**
 * The memories most relevant to a turn's message, without the turns already in the prompt's
 * history. A chat still answers (from its history) when retrieval fails, e.g. embeddings down.
 * Recall is a turn's first work: a turn whose query the model would not embed in time is refused
 * here (503, nothing done), not answered without its memories.
 */
export async function recall(deps: UseCaseDeps, agent: Agent, message: string, history: ChatMessage[]) {
  if (deps.settings.chatMemoryTopK === 0) return [];
  const query = message.slice(0, RETRIEVAL_QUERY_CHARS);
  deps.queryEmbeddings.admit(query, agent.tenantId);
  const inHistory = new Set(history.map((m) => m.id));
  const exclude =
    inHistory.size > 0
      ? (doc: IndexedMemory) => typeof doc.metadata.message_id === 'string' && inHistory.has(doc.metadata.message_id)
      : undefined;
  try {
    return await traced(
      'memory search',
      {
        attributes: { 'agentplatform.agent.id': agent.id, 'agentplatform.memory.top_k': deps.settings.chatMemoryTopK },
      },
      async (span) => {
        const found = await searchMemory(
          deps,
          {
            tenantId: agent.tenantId,
            agentId: agent.id,
            query,
            topK: deps.settings.chatMemoryTopK,
            minScore: deps.settings.chatMemoryMinScore,
            memoryVersion: agent.memoryVersion,
          },
          exclude,
        );
        span?.setAttribute('agentplatform.memory.found', found.length);
        return found;
      },
    );
  } catch (error) {
    // A chat still answers (from its history) when memory retrieval fails, e.g. embeddings down.
    deps.logger.warn({ err: error, agent_id: agent.id }, 'memory retrieval failed; answering without memories');
    return [];
  }
}
