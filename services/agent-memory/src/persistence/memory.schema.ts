import { Schema, type Connection, type Model } from 'mongoose';

export interface EmbeddingDocument {
  provider: string;
  dimension: number;
  /** Float32 little-endian, `dimension` values: 4 bytes each instead of a BSON double array's ~9. */
  vector: Buffer;
}

export interface MergedDocument {
  id: string;
  content: string;
  metadata: Record<string, unknown>;
  created_at: Date;
}

export interface MemoryDocument {
  _id: string;
  tenant_id: string;
  agent_id: string;
  memory_type: string;
  content: string;
  metadata: Record<string, unknown>;
  embedding?: EmbeddingDocument;
  merged_from: MergedDocument[];
  /** Set while a replica's embedding backlog holds the item (see EmbeddingBacklog). */
  embed_lease_until?: Date;
  embed_token?: string;
  created_at: Date;
  updated_at: Date;
}

const memorySchema = new Schema<MemoryDocument>(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    agent_id: { type: String, required: true },
    memory_type: { type: String, required: true },
    content: { type: String, required: true },
    metadata: { type: Schema.Types.Mixed, default: {} },
    embedding: {
      type: new Schema<EmbeddingDocument>({ provider: String, dimension: Number, vector: Buffer }, { _id: false }),
      required: false,
    },
    merged_from: {
      type: [
        new Schema<MergedDocument>(
          { id: String, content: String, metadata: Schema.Types.Mixed, created_at: Date },
          { _id: false, minimize: false },
        ),
      ],
      default: [],
    },
    embed_lease_until: { type: Date, required: false },
    embed_token: { type: String, required: false },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'memories', versionKey: false, minimize: false },
);
memorySchema.index({ tenant_id: 1, agent_id: 1, _id: -1 });
memorySchema.index({ tenant_id: 1, agent_id: 1, memory_type: 1, _id: -1 });
// The start-up pass that opens a due entry for every item lacking a vector of the current
// embedder (`embedding.provider` $ne it: once per start, see EmbeddingBacklogRepository).
memorySchema.index({ 'embedding.provider': 1, tenant_id: 1 });
// The backlog's claims and stores address an item by primary key and lease token together. The
// index holds only leased items on MongoDB (partial), and it is what lets the local stand-in,
// which uses unique indexes only and ignores the partial filter, answer those filters without
// scanning the collection (a scan per item made the backlog's drain quadratic there).
memorySchema.index(
  { embed_token: 1, _id: 1 },
  { unique: true, partialFilterExpression: { embed_token: { $exists: true } } },
);

export function memoryModel(connection: Connection): Model<MemoryDocument> {
  return (connection.models.Memory as Model<MemoryDocument>) ?? connection.model('Memory', memorySchema);
}
