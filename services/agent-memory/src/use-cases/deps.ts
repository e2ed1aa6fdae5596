import type { Outbox } from '@agentplatform/events';
import type { CreditsClient, Logger, QuotaCounter, SecretBox } from '@agentplatform/service-kit';
import type { Dispatcher } from 'undici';
import type { Agent } from '../domain/agent.js';
import type { ChatStore } from '../domain/chat-store.js';
import type { WorkflowPort } from '../clients/workflow.client.js';
import type { EmbeddingProvider } from '../embeddings/embedding-provider.js';
import type { LlmProvider } from '../llm/llm-provider.js';
import type { AgentRepository } from '../persistence/agent.repository.js';
import type { MemoryRepository } from '../persistence/memory.repository.js';
import type { MemoryIndexCache } from '../search/memory-index-cache.js';
import type { QueryEmbeddings } from '../search/query-embeddings.js';
import type { McpTools } from '../tools/mcp-tools.js';
import type { EmbeddingBacklog } from './embedding-backlog.js';

export interface Settings {
  lexicalWeight: number;
  consolidateThreshold: number;
  historyMessages: number;
  chatMemoryTopK: number;
  chatMemoryMinScore: number;
  /** CHAT_TURN_DEADLINE_MS: a chat turn's total time bound. */
  chatTurnDeadlineMs: number;
}

/** Everything the use cases need; built once in main.ts. */
export interface UseCaseDeps {
  agents: AgentRepository;
  memories: MemoryRepository;
  chats: ChatStore;
  /** A chat turn's agent read (grouped with concurrent turns': persistence/grouped-agent-reads.ts). */
  chatAgents: { find(tenantId: string, agentId: string): Promise<Agent | undefined> };
  outbox: Outbox;
  embedder: EmbeddingProvider;
  /** Vectors of search queries (cached); memory items get theirs from the backlog. */
  queryEmbeddings: QueryEmbeddings;
  backlog: EmbeddingBacklog;
  llm: LlmProvider;
  credits: CreditsClient;
  index: MemoryIndexCache;
  /** Agents per tenant and memories per agent (docs/design.md section 5). */
  quotas: QuotaCounter;
  settings: Settings;
  logger: Logger;
  /** What agents' tools act through (docs/design.md section 9). */
  tools: {
    workflows: WorkflowPort;
    /** Seals http and mcp grant header values at rest. */
    box: SecretBox;
    /** The SSRF-guarded dispatcher of every outbound tool request. */
    dispatcher: Dispatcher;
    mcp: McpTools;
  };
}
