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

export interface ScoredMemory {
  item: Pick<MemoryItem, 'id' | 'agentId' | 'memoryType' | 'content' | 'metadata' | 'createdAt'>;
  score: number;
}
