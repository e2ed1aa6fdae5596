import type { MemoryType } from './agent.js';

export interface MergedItem {
  id: string;
  content: string;
  metadata: Record<string, unknown>;
  createdAt: Date;
}

export interface Embedding {
  /** e.g. `local-hash-v1` or `openai:text-embedding-3-small`; vectors of different providers are never compared. */
  provider: string;
  dimension: number;
  vector: Float32Array;
}

export interface MemoryItem {
  id: string;
  tenantId: string;
  agentId: string;
  memoryType: MemoryType;
  content: string;
  metadata: Record<string, unknown>;
  embedding?: Embedding;
  mergedFrom: MergedItem[];
  createdAt: Date;
  updatedAt: Date;
}

/** What search indexes, ranks and answers with: a memory without its tenant, vector and history. */
export type MemorySummary = Pick<MemoryItem, 'id' | 'agentId' | 'memoryType' | 'content' | 'metadata' | 'createdAt'>;

/**
 * The summary of a memory, field by field: the search index, the memory answer and the search
 * result all start from it, and a wider value passed in (a stored item, an indexed document)
 * carries none of its other fields along.
 */
export function memorySummary(item: MemorySummary): MemorySummary {
  return {
    id: item.id,
    agentId: item.agentId,
    memoryType: item.memoryType,
    content: item.content,
    metadata: item.metadata,
    createdAt: item.createdAt,
  };
}

export interface ScoredMemory {
  item: MemorySummary;
  score: number;
}

/**
 * One agent's memory as its tools reach it (memory_search, memory_add): the use cases bound to a
 * chat's tenant, agent and plan, so a tool can neither pick another agent nor skip a rule.
 */
export interface AgentMemory {
  search(query: string, topK: number): Promise<ScoredMemory[]>;
  add(item: { content: string; memoryType?: string; metadata: Record<string, unknown> }): Promise<MemoryItem>;
}
