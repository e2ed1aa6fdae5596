import { Schema, type Connection, type Model } from 'mongoose';

export interface EmbeddingDoc {
  provider: string;
  dimension: number;
  /** Float32 little-endian, `dimension` values: 4 bytes each instead of a BSON double array's ~9. */
  vector: Buffer;
}

export interface MergedDoc {
  id: string;
  content: string;
  metadata: Record<string, unknown>;
  created_at: Date;
}

export interface MemoryDoc {
  _id: string;
  tenant_id: string;
  agent_id: string;
  memory_type: string;
  content: string;
  metadata: Record<string, unknown>;
  embedding?: EmbeddingDoc;
  merged_from: MergedDoc[];
  /** Set while a replica's embedding backlog holds the item (see EmbeddingBacklog). */
  embed_lease_until?: Date;
  embed_token?: string;
  created_at: Date;
  updated_at: Date;
}

const memorySchema = new Schema<MemoryDoc>(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    agent_id: { type: String, required: true },
    memory_type: { type: String, required: true },
    content: { type: String, required: true },
    metadata: { type: Schema.Types.Mixed, default: {} },
    embedding: {
      type: new Schema<EmbeddingDoc>({ provider: String, dimension: Number, vector: Buffer }, { _id: false }),
      required: false,
    },
    merged_from: {
      type: [
        new Schema<MergedDoc>(
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
// The backlog's look-up of waiting items (`embedding.provider` $ne the current embedder), also
// with the tenants it holds candidates of left out (`tenant_id` $nin), and the backlog's count.
memorySchema.index({ 'embedding.provider': 1, tenant_id: 1 });
// The backlog's claims and stores address an item by primary key and lease token together. The
// index holds only leased items on MongoDB (partial), and it is what lets the local stand-in,
// which uses unique indexes only and ignores the partial filter, answer those filters without
// scanning the collection (a scan per item made the backlog's drain quadratic there).
memorySchema.index(
  { embed_token: 1, _id: 1 },
  { unique: true, partialFilterExpression: { embed_token: { $exists: true } } },
);

export function memoryModel(connection: Connection): Model<MemoryDoc> {
  return (connection.models.Memory as Model<MemoryDoc>) ?? connection.model('Memory', memorySchema);
}
