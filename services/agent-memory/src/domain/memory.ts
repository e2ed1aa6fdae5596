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

/** An item waiting for a vector of the current embedder, as a look-up of the backlog finds it. */
export interface PendingItem {
  id: string;
  tenantId: string;
  /** The content's length in characters (what the backlog estimates the item's model work by). */
  length: number;
  /** The item's lease token as last seen (an expired lease's): the claim's compare-and-set. */
  token?: string;
  /** The version of the item's backlog entry the look-up read (writes after it are addressed to it). */
  rev: string;
}

/** An item claimed by one backlog batch, with its content as it was at the claim. */
export interface ClaimedItem {
  id: string;
  tenantId: string;
  agentId: string;
  content: string;
}

/** What a look-up of waiting items is limited to. */
export interface PendingScope {
  /** One agent's items only (consolidation embeds what it is about to compare). */
  agent?: { tenantId: string; agentId: string };
  /** Items of every tenant but these (the backlog holds candidates of these already). */
  exceptTenants?: string[];
}
