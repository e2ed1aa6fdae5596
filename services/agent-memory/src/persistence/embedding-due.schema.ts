import { Schema, type Connection, type Model } from 'mongoose';

/**
 * One entry per memory item that may lack a vector of the current embedder: what the embedding
 * backlog's look-ups page through instead of the memories, which hold every item a tenant keeps.
 * On MongoDB an index on the memories would serve the look-up too, but the local stand-in serves
 * no `$ne` or range from an index and scans, so an idle replica's poll (every second) must cost
 * what is waiting, not what is stored (docs/queries.md).
 *
 * An entry is a hint, the item is the truth: the claim is a compare-and-set on the item, and an
 * entry whose item is gone or already has a vector of the embedder is dropped when a look-up finds
 * it. Every write that (re)opens an entry gives it a new `rev`, and every write that follows a
 * look-up is addressed to the `rev` it read, so an entry reopened meanwhile (new content) is
 * never dropped by a batch that embedded the old content.
 */
export interface EmbeddingDueDocument {
  /** The memory item's `_id`. */
  _id: string;
  tenant_id: string;
  agent_id: string;
  /** The content's length in characters (what the backlog estimates the item's model work by). */
  length: number;
  /** When the item may be claimed: at once, or when the lease of the batch holding it runs out. */
  due_at: Date;
  /** Changes on every write of the entry: its owner's claim token while a batch holds the item. */
  rev: string;
  /** The item's lease token as last seen (the claim's compare-and-set needs it). */
  token?: string;
}

const embeddingDueSchema = new Schema<EmbeddingDueDocument>(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    agent_id: { type: String, required: true },
    length: { type: Number, required: true },
    due_at: { type: Date, required: true },
    rev: { type: String, required: true },
    token: { type: String, required: false },
  },
  { collection: 'memory_embedding_due', versionKey: false },
);
// Every write after a look-up names the entry and the rev it read: an index look-up on the
// stand-in too (it uses a unique index whose keys the filter names exactly).
embeddingDueSchema.index({ rev: 1, _id: 1 }, { unique: true });
// Consolidation's look-up of one agent's waiting items, and an agent's delete.
embeddingDueSchema.index({ tenant_id: 1, agent_id: 1, _id: 1 }, { unique: true });
// The backlog's look-up of due entries on MongoDB.
embeddingDueSchema.index({ due_at: 1, _id: 1 }, { unique: true });

export function embeddingDueModel(connection: Connection): Model<EmbeddingDueDocument> {
  return (
    (connection.models.EmbeddingDue as Model<EmbeddingDueDocument>) ??
    connection.model('EmbeddingDue', embeddingDueSchema)
  );
}
