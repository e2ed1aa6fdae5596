import type { MemoryType } from '../domain/agent.js';
import type { Embedding, MemoryItem } from '../domain/memory.js';
import type { EmbeddingDocument, MemoryDocument } from './memory.schema.js';

/** What a lean read gives for a Buffer field: a Buffer, or the driver's Binary wrapping one. */
type StoredBytes = Uint8Array | { buffer: Uint8Array };

function toVector(stored: StoredBytes): Float32Array {
  const bytes = stored instanceof Uint8Array ? stored : stored.buffer;
  // Copy into a fresh, 4-byte-aligned buffer: the driver's bytes may start at any offset.
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer, 0, Math.floor(bytes.byteLength / 4));
}

export function fromEmbedding(embedding: Embedding): EmbeddingDocument {
  const { vector } = embedding;
  return {
    provider: embedding.provider,
    dimension: embedding.dimension,
    vector: Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength),
  };
}

export function toMemoryItem(doc: MemoryDocument): MemoryItem {
  const stored: StoredBytes | undefined = doc.embedding?.vector;
  return {
    id: doc._id,
    tenantId: doc.tenant_id,
    agentId: doc.agent_id,
    memoryType: doc.memory_type as MemoryType,
    content: doc.content,
    metadata: doc.metadata ?? {},
    // Lists read the provider without the vector (an empty one here).
    embedding: doc.embedding?.provider
      ? {
          provider: doc.embedding.provider,
          dimension: doc.embedding.dimension,
          vector: stored ? toVector(stored) : new Float32Array(0),
        }
      : undefined,
    mergedFrom: (doc.merged_from ?? []).map((m) => ({
      id: m.id,
      content: m.content,
      metadata: m.metadata ?? {},
      createdAt: m.created_at,
    })),
    createdAt: doc.created_at,
    updatedAt: doc.updated_at,
  };
}

/** The stored document of an item: the schema's fields exactly (no vector field until it has one). */
export function fromMemoryItem(item: MemoryItem): MemoryDocument {
  return {
    _id: item.id,
    tenant_id: item.tenantId,
    agent_id: item.agentId,
    memory_type: item.memoryType,
    content: item.content,
    metadata: item.metadata,
    ...(item.embedding ? { embedding: fromEmbedding(item.embedding) } : {}),
    merged_from: [],
    created_at: item.createdAt,
    updated_at: item.updatedAt,
  };
}
