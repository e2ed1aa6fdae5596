import { findPage, insertEach } from '@agentplatform/service-kit';
import type { ClientSession, Collection, Connection, Model } from 'mongoose';
import type { MemoryType } from '../domain/agent.js';
import type { Embedding, MemoryItem } from '../domain/memory.js';
import { memoryModel, type EmbeddingDoc, type MemoryDoc } from './memory.schema.js';

/** What a lean read gives for a Buffer field: a Buffer, or the driver's Binary wrapping one. */
type StoredBytes = Uint8Array | { buffer: Uint8Array };

function toBuffer(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

function toVector(stored: StoredBytes): Float32Array {
  const bytes = stored instanceof Uint8Array ? stored : stored.buffer;
  // Copy into a fresh, 4-byte-aligned buffer: the driver's bytes may start at any offset.
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer, 0, Math.floor(bytes.byteLength / 4));
}

function toEmbeddingDoc(embedding: Embedding): EmbeddingDoc {
  return { provider: embedding.provider, dimension: embedding.dimension, vector: toBuffer(embedding.vector) };
}

function toItem(doc: MemoryDoc): MemoryItem {
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
          vector: doc.embedding.vector ? toVector(doc.embedding.vector as unknown as StoredBytes) : new Float32Array(0),
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

export interface MemoryChanges {
  content?: string;
  metadata?: Record<string, unknown>;
  memoryType?: MemoryType;
}

/** An item waiting for a vector of the current embedder, claimed by one backlog batch. */
export interface ClaimedItem {
  id: string;
  tenantId: string;
  agentId: string;
  content: string;
}

/** An item `findPending` found: lacking a vector, and with no lease or the token of an expired one. */
export interface PendingItem {
  id: string;
  tenantId: string;
  /** The content's length in characters (what the backlog estimates the item's model work by). */
  length: number;
  token?: string;
}

/** What a look-up of waiting items is limited to. */
export interface PendingScope {
  /** One agent's items only (consolidation embeds what it is about to compare). */
  agent?: { tenantId: string; agentId: string };
  /** Items of every tenant but these (the backlog holds candidates of these already). */
  exceptTenants?: string[];
}

/** Items with no vector of `provider` (never embedded, or by another embedder). */
function pending(provider: string): Record<string, unknown> {
  return { 'embedding.provider': { $ne: provider } };
}

/** The stored document of an item: the schema's fields exactly (no vector field until it has one). */
function memoryDocument(item: MemoryItem): MemoryDoc {
  return {
    _id: item.id,
    tenant_id: item.tenantId,
    agent_id: item.agentId,
    memory_type: item.memoryType,
    content: item.content,
    metadata: item.metadata,
    ...(item.embedding ? { embedding: toEmbeddingDoc(item.embedding) } : {}),
    merged_from: [],
    created_at: item.createdAt,
    updated_at: item.updatedAt,
  };
}

export class MemoryRepository {
  private readonly model: Model<MemoryDoc>;

  constructor(connection: Connection) {
    this.model = memoryModel(connection);
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  async insert(item: MemoryItem, session?: ClientSession): Promise<void> {
    await this.model.create([memoryDocument(item)], { session });
  }

  /**
   * Inserts new items (no vector yet) in one round trip, unordered: answers per item undefined
   * when stored, or the error that item met (the others are stored regardless). The documents are
   * the schema's fields exactly, written without mongoose's per-document casting.
   */
  async insertMany(items: MemoryItem[]): Promise<Array<undefined | Error>> {
    const docs = items.map(memoryDocument);
    return insertEach(this.model.collection as unknown as Collection<MemoryDoc>, docs);
  }

  /** Deletes the tenant's items of these ids (a group write whose agent was deleted meanwhile). */
  async deleteIds(tenantId: string, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return (await this.model.deleteMany({ tenant_id: tenantId, _id: { $in: ids } })).deletedCount;
  }

  async find(tenantId: string, id: string, session?: ClientSession): Promise<MemoryItem | undefined> {
    const doc = await this.model.findOne({ _id: id, tenant_id: tenantId }, null, { session }).lean<MemoryDoc>();
    return doc ? toItem(doc) : undefined;
  }

  async list(
    tenantId: string,
    filter: { agentId?: string; memoryType?: string },
    skip: number,
    limit: number,
  ): Promise<{ items: MemoryItem[]; total: number }> {
    const query: Record<string, unknown> = { tenant_id: tenantId };
    if (filter.agentId) query.agent_id = filter.agentId;
    if (filter.memoryType) query.memory_type = filter.memoryType;
    const { docs, total } = await findPage(this.model, query, {
      sort: { _id: -1 },
      skip,
      limit,
      projection: { 'embedding.vector': 0 },
    });
    return { items: docs.map(toItem), total };
  }

  /** Every item of one agent with its vector, for the search index. */
  async loadAgent(tenantId: string, agentId: string): Promise<MemoryItem[]> {
    const docs = await this.model
      .find({ tenant_id: tenantId, agent_id: agentId }, { merged_from: 0 })
      .lean<MemoryDoc[]>();
    return docs.map(toItem);
  }

  async count(tenantId: string, agentId: string, session?: ClientSession): Promise<number> {
    return this.model.countDocuments({ tenant_id: tenantId, agent_id: agentId }, { session });
  }

  async update(tenantId: string, id: string, changes: MemoryChanges, now: Date): Promise<MemoryItem | undefined> {
    const set: Record<string, unknown> = { updated_at: now };
    if (changes.content !== undefined) set.content = changes.content;
    if (changes.metadata !== undefined) set.metadata = changes.metadata;
    if (changes.memoryType !== undefined) set.memory_type = changes.memoryType;
    // New content needs a new vector: the item goes back to the embedding backlog, and a batch
    // that claimed the old content can no longer store its vector (its token is gone).
    const update: Record<string, unknown> = { $set: set };
    if (changes.content !== undefined) update.$unset = { embedding: '', embed_lease_until: '', embed_token: '' };
    const doc = await this.model
      .findOneAndUpdate({ _id: id, tenant_id: tenantId }, update, { returnDocument: 'after' })
      .lean<MemoryDoc>();
    return doc ? toItem(doc) : undefined;
  }

  /**
   * Up to `limit` items that lack a vector of `provider` and that no live lease holds, each with
   * its tenant, its content's length and the token of the lease it had (an expired one) if any.
   * A look-up only: `claim` takes them.
   *
   * This is the backlog's only query that is not answered by primary key: on MongoDB the
   * (`embedding.provider`, `tenant_id`) index answers it, skipping the keys of the tenants left
   * out; the local stand-in scans the collection for it, so the backlog asks for many candidates
   * at a time (see EmbeddingBacklog) rather than once per batch.
   */
  async findPending(provider: string, limit: number, now: Date, scope: PendingScope = {}): Promise<PendingItem[]> {
    const free: Record<string, unknown> = {
      ...pending(provider),
      $or: [
        { embed_lease_until: { $exists: false } },
        { embed_lease_until: null },
        { embed_lease_until: { $lt: now } },
      ],
    };
    if (scope.agent) Object.assign(free, { tenant_id: scope.agent.tenantId, agent_id: scope.agent.agentId });
    else if (scope.exceptTenants?.length) free.tenant_id = { $nin: scope.exceptTenants };
    const docs = await this.model
      .find(free, { _id: 1, tenant_id: 1, content: 1, embed_token: 1 })
      .limit(limit)
      .lean<Array<Pick<MemoryDoc, '_id' | 'tenant_id' | 'content' | 'embed_token'>>>();
    return docs.map((d) => ({
      id: d._id,
      tenantId: d.tenant_id,
      length: d.content.length,
      ...(d.embed_token ? { token: d.embed_token } : {}),
    }));
  }

  /**
   * Claims the items `findPending` found, for one backlog batch: marks each with `token` until
   * `leaseUntil`, provided it still carries the lease token it had then (none, or an expired
   * one): a compare-and-set per item by primary key, so replicas never embed the same batch
   * twice, and a replica that dies mid-batch only delays its items until the lease runs out.
   * Items another replica took meanwhile are skipped; items that got a vector of `provider`
   * meanwhile are let go again. Answers the items claimed, with their current content.
   */
  async claim(
    candidates: Array<Pick<PendingItem, 'id' | 'token'>>,
    provider: string,
    token: string,
    leaseUntil: Date,
  ): Promise<ClaimedItem[]> {
    if (candidates.length === 0) return [];
    // `embed_token: null` matches an item without a token. Every filter here is the primary key
    // plus the token, which the unique (embed_token, _id) index also answers on the stand-in.
    const result = await this.model.bulkWrite(
      candidates.map((c) => ({
        updateOne: {
          filter: { _id: c.id, embed_token: c.token ?? null },
          update: { $set: { embed_lease_until: leaseUntil, embed_token: token } },
        },
      })),
      { ordered: false },
    );
    if (result.modifiedCount === 0) return [];
    const docs = await this.model
      .find(
        { _id: { $in: candidates.map((c) => c.id) } },
        { _id: 1, tenant_id: 1, agent_id: 1, content: 1, embed_token: 1, 'embedding.provider': 1 },
      )
      .lean<Array<Pick<MemoryDoc, '_id' | 'tenant_id' | 'agent_id' | 'content' | 'embed_token' | 'embedding'>>>();
    const ours = docs.filter((d) => d.embed_token === token);
    // Embedded by another replica after the look-up (its token was gone again by the claim).
    await this.releaseClaim(
      token,
      ours.filter((d) => d.embedding?.provider === provider).map((d) => d._id),
    );
    return ours
      .filter((d) => d.embedding?.provider !== provider)
      .map((d) => ({ id: d._id, tenantId: d.tenant_id, agentId: d.agent_id, content: d.content }));
  }

  /**
   * Stores the vectors of a claimed batch and releases it. An item whose content changed since the
   * claim lost the token (see update) and keeps waiting for a vector of its new content.
   * Returns the items stored, as they are now.
   */
  async storeClaimed(token: string, vectors: Array<{ id: string; embedding: Embedding }>): Promise<MemoryItem[]> {
    if (vectors.length === 0) return [];
    await this.model.bulkWrite(
      vectors.map((v) => ({
        updateOne: {
          filter: { _id: v.id, embed_token: token },
          update: {
            $set: { embedding: toEmbeddingDoc(v.embedding) },
            $unset: { embed_lease_until: '', embed_token: '' },
          },
        },
      })),
      { ordered: false },
    );
    const docs = await this.model
      .find({ _id: { $in: vectors.map((v) => v.id) } }, { merged_from: 0 })
      .lean<MemoryDoc[]>();
    const byId = new Map(vectors.map((v) => [v.id, v.embedding.provider]));
    return docs.map(toItem).filter((item) => item.embedding?.provider === byId.get(item.id));
  }

  /**
   * Removes `token`'s lease from these items, where it still stands (by primary key and token):
   * a claimed batch whose embedding failed is tried again at once.
   */
  async releaseClaim(token: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.model.bulkWrite(
      ids.map((id) => ({
        updateOne: {
          filter: { _id: id, embed_token: token },
          update: { $unset: { embed_lease_until: '', embed_token: '' } },
        },
      })),
      { ordered: false },
    );
  }

  /** Items waiting for a vector of `provider`, over all tenants (the backlog's size). */
  async countPending(provider: string): Promise<number> {
    return this.model.countDocuments(pending(provider));
  }

  async delete(tenantId: string, id: string): Promise<MemoryItem | undefined> {
    const doc = await this.model
      .findOneAndDelete({ _id: id, tenant_id: tenantId }, { projection: { embedding: 0 } })
      .lean<MemoryDoc>();
    return doc ? toItem(doc) : undefined;
  }

  async deleteAgent(tenantId: string, agentId: string): Promise<number> {
    return (await this.model.deleteMany({ tenant_id: tenantId, agent_id: agentId })).deletedCount;
  }

  /**
   * Folds duplicates into the item that absorbs them: records them in `merged_from`, sets the
   * merged metadata, then deletes them. Each group is independent, so a crash mid-way leaves every
   * item either merged or untouched.
   */
  async mergeInto(
    tenantId: string,
    keptId: string,
    metadata: Record<string, unknown>,
    absorbed: MemoryItem[],
    now: Date,
    session?: ClientSession,
  ): Promise<void> {
    await this.model.updateOne(
      { _id: keptId, tenant_id: tenantId },
      {
        $set: { metadata, updated_at: now },
        $push: {
          merged_from: {
            $each: absorbed.map((a) => ({
              id: a.id,
              content: a.content,
              metadata: a.metadata,
              created_at: a.createdAt,
            })),
          },
        },
      },
      { session },
    );
    await this.model.deleteMany({ tenant_id: tenantId, _id: { $in: absorbed.map((a) => a.id) } }, { session });
  }
}
