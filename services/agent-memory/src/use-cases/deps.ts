import type { Outbox } from '@agentplatform/events';
import type { CreditsClient, Logger, SecretBox } from '@agentplatform/service-kit';
import type { Dispatcher } from 'undici';
import type { Agent } from '../domain/agent.js';
import type { ChatStore } from '../domain/chat-store.js';
import type { WorkflowPort } from '../clients/workflow.client.js';
import type { EmbeddingProvider } from '../embeddings/embedding-provider.js';
import type { LlmProvider } from '../llm/llm-provider.js';
import type { QueryVectors } from '../search/query-embeddings.js';
import type { McpPort } from '../tools/mcp-tools.js';
import type { AgentStore, MemoryStore, MemoryWrites, Quotas, SearchIndex } from './memory-ports.js';

export interface Settings {
  lexicalWeight: number;
  consolidateThreshold: number;
  historyMessages: number;
  chatMemoryTopK: number;
  chatMemoryMinScore: number;
  /** CHAT_TURN_DEADLINE_MS: a chat turn's total time bound. */
  chatTurnDeadlineMs: number;
}

/** Items waiting for a vector are embedded off the request path (jobs/embedding-backlog.ts). */
export interface EmbeddingQueue {
  /** A write left these items without a vector: work soon rather than at the next poll. */
  kick(items: ReadonlyArray<{ content: string }>): void;
  /** Embeds one agent's waiting items now (consolidation compares vectors). */
  drainAgent(tenantId: string, agentId: string): Promise<void>;
}

/** Everything the use cases need; built once in main.ts. */
export interface UseCaseDeps {
  agents: AgentStore;
  memories: MemoryStore;
  /** Single adds, grouped per agent (the quota and the agent's types checked with the write). */
  memoryWriter: MemoryWrites;
  chats: ChatStore;
  /** A chat turn's agent read (grouped with concurrent turns': persistence/grouped-agent-reads.ts). */
  chatAgents: { find(tenantId: string, agentId: string): Promise<Agent | undefined> };
  /** Use cases only run their writes through it (the chat store holds its own, for group commits). */
  outbox: Pick<Outbox, 'run'>;
  embedder: EmbeddingProvider;
  /** Vectors of search queries (cached); memory items get theirs from the backlog. */
  queryEmbeddings: QueryVectors;
  backlog: EmbeddingQueue;
  llm: LlmProvider;
  credits: CreditsClient;
  index: SearchIndex;
  /** Agents per tenant and memories per agent (docs/design.md section 5). */
  quotas: Quotas;
  settings: Settings;
  logger: Logger;
  /** What agents' tools act through (docs/design.md section 9). */
  tools: {
    workflows: WorkflowPort;
    /** Seals http and mcp grant header values at rest. */
    box: SecretBox;
    /** The SSRF-guarded dispatcher of every outbound tool request. */
    dispatcher: Dispatcher;
    mcp: McpPort;
  };
}
