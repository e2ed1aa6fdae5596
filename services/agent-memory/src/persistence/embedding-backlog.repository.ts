import { randomUUID } from 'node:crypto';
import type { Connection, Model } from 'mongoose';
import type { ClaimedItem, Embedding, MemoryItem, PendingItem, PendingScope } from '../domain/memory.js';
import { embeddingDueModel, type EmbeddingDueDocument } from './embedding-due.schema.js';
import { fromEmbedding, toMemoryItem } from './memory.mapping.js';
import { memoryModel, type MemoryDocument } from './memory.schema.js';

/** Entries written per round trip by the start-up pass. */
const OPEN_CHUNK = 1_000;

type ClaimRead = Pick<
  MemoryDocument,
  '_id' | 'tenant_id' | 'agent_id' | 'content' | 'embed_token' | 'embed_lease_until' | 'embedding'
>;

/**
 * The embedding backlog's store: its look-ups go to the due entries (embedding-due.schema.ts),
 * its claims and stores to the items, by primary key and lease token. Every call but the start-up
 * pass is answered by an index on the stand-in too, or reads the due entries, which hold only
 * what waits: an idle replica's poll reads an empty collection, whatever the tenants store.
 */
export class EmbeddingBacklogRepository {
  private readonly memories: Model<MemoryDocument>;
  private readonly due: Model<EmbeddingDueDocument>;

  constructor(connection: Connection) {
    this.memories = memoryModel(connection);
    this.due = embeddingDueModel(connection);
  }

  async init(): Promise<void> {
    await Promise.all([this.memories.init(), this.due.init()]);
  }

  /**
   * Opens an entry for every item lacking a vector of `provider` that has none: the items of a
   * former embedder (switching re-embeds everything in the background) and any a crash left
   * between an item's write and its entry's. One pass over the items at start (the only query
   * here the stand-in answers by a scan); idempotent, so every replica runs it.
   */
  async openMissing(provider: string, now: Date): Promise<number> {
    const waiting = await this.memories
      .find({ 'embedding.provider': { $ne: provider } }, { tenant_id: 1, agent_id: 1, content: 1 })
      .lean<Array<Pick<MemoryDocument, '_id' | 'tenant_id' | 'agent_id' | 'content'>>>();
    for (let i = 0; i < waiting.length; i += OPEN_CHUNK) {
      await this.due.bulkWrite(
        waiting.slice(i, i + OPEN_CHUNK).map((item) => ({
          updateOne: {
            filter: { _id: item._id },
            update: {
              $setOnInsert: {
                tenant_id: item.tenant_id,
                agent_id: item.agent_id,
                length: item.content.length,
                due_at: now,
                rev: randomUUID(),
              },
            },
            upsert: true,
          },
        })),
        { ordered: false },
      );
    }
    return waiting.length;
  }

  /**
   * Up to `limit` items due by `now` (waiting, and held by no live lease), each with its tenant,
   * its content's length and the lease token it had (an expired one) if any. A look-up only:
   * `claim` takes them.
   */
  async findPending(limit: number, now: Date, scope: PendingScope = {}): Promise<PendingItem[]> {
    const filter: Record<string, unknown> = { due_at: { $lte: now } };
    if (scope.agent) Object.assign(filter, { tenant_id: scope.agent.tenantId, agent_id: scope.agent.agentId });
    else if (scope.exceptTenants?.length) filter.tenant_id = { $nin: scope.exceptTenants };
    const entries = await this.due
      .find(filter, { tenant_id: 1, length: 1, rev: 1, token: 1 })
      .limit(limit)
      .lean<Array<Pick<EmbeddingDueDocument, '_id' | 'tenant_id' | 'length' | 'rev' | 'token'>>>();
    return entries.map((e) => ({
      id: e._id,
      tenantId: e.tenant_id,
      length: e.length,
      rev: e.rev,
      ...(e.token ? { token: e.token } : {}),
    }));
  }

  /**
   * Claims the items `findPending` found, for one backlog batch: marks each with `token` until
   * `leaseUntil`, provided it still carries the lease token it had then (none, or an expired
   * one): a compare-and-set per item by primary key, so replicas never embed the same batch
   * twice, and a replica that dies mid-batch only delays its items until the lease runs out.
   * Then each entry follows its item: ours is due when our lease ends; one another replica took
   * is due when that lease ends; one whose item is gone or has a vector of `provider` is dropped
   * (a claimed item with one is let go again). Answers the items claimed, with their content.
   */
  async claim(candidates: PendingItem[], provider: string, token: string, leaseUntil: Date): Promise<ClaimedItem[]> {
    if (candidates.length === 0) return [];
    const now = new Date();
    // `embed_token: null` matches an item without a token. Every filter here is the primary key
    // plus the token, which the unique (embed_token, _id) index also answers on the stand-in.
    await this.memories.bulkWrite(
      candidates.map((c) => ({
        updateOne: {
          filter: { _id: c.id, embed_token: c.token ?? null },
          update: { $set: { embed_lease_until: leaseUntil, embed_token: token } },
        },
      })),
      { ordered: false },
    );
    const docs = await this.memories
      .find(
        { _id: { $in: candidates.map((c) => c.id) } },
        { tenant_id: 1, agent_id: 1, content: 1, embed_token: 1, embed_lease_until: 1, 'embedding.provider': 1 },
      )
      .lean<ClaimRead[]>();
    const byId = new Map(docs.map((d) => [d._id, d]));
    const claimed: ClaimedItem[] = [];
    const embedded: string[] = [];
    const entries = candidates.map((c) => {
      const doc = byId.get(c.id);
      const entry = { _id: c.id, rev: c.rev };
      const ours = doc?.embed_token === token;
      if (!doc || doc.embedding?.provider === provider) {
        if (ours) embedded.push(c.id);
        return { deleteOne: { filter: entry } };
      }
      if (ours) {
        claimed.push({ id: doc._id, tenantId: doc.tenant_id, agentId: doc.agent_id, content: doc.content });
        return { updateOne: { filter: entry, update: { $set: { rev: token, token, due_at: leaseUntil } } } };
      }
      // Taken by another replica since the look-up, or the entry's token was out of date: the
      // entry follows the item (its `rev` stays, so the taker's own write still finds it).
      const leased = doc.embed_token && doc.embed_lease_until;
      const dueAt = leased && doc.embed_lease_until! > now ? doc.embed_lease_until! : now;
      const update = doc.embed_token
        ? { $set: { token: doc.embed_token, due_at: dueAt } }
        : { $set: { due_at: now }, $unset: { token: '' } };
      return { updateOne: { filter: entry, update } };
    });
    await this.unlease(token, embedded);
    await this.due.bulkWrite(entries, { ordered: false });
    return claimed;
  }

  /**
   * Stores the vectors of a claimed batch, releases it and closes its entries. An item whose
   * content changed since the claim lost the token (and its entry was opened again: see
   * MemoryRepository.update); it keeps waiting for a vector of its new content.
   * Returns the items stored, as they are now.
   */
  async storeClaimed(token: string, vectors: Array<{ id: string; embedding: Embedding }>): Promise<MemoryItem[]> {
    if (vectors.length === 0) return [];
    await this.memories.bulkWrite(
      vectors.map((v) => ({
        updateOne: {
          filter: { _id: v.id, embed_token: token },
          update: {
            $set: { embedding: fromEmbedding(v.embedding) },
            $unset: { embed_lease_until: '', embed_token: '' },
          },
        },
      })),
      { ordered: false },
    );
    const docs = await this.memories
      .find({ _id: { $in: vectors.map((v) => v.id) } }, { merged_from: 0 })
      .lean<MemoryDocument[]>();
    const byId = new Map(vectors.map((v) => [v.id, v.embedding.provider]));
    const stored = docs.map(toMemoryItem).filter((item) => item.embedding?.provider === byId.get(item.id));
    if (stored.length > 0) {
      await this.due.bulkWrite(
        stored.map((item) => ({ deleteOne: { filter: { _id: item.id, rev: token } } })),
        { ordered: false },
      );
    }
    return stored;
  }

  /**
   * Removes `token`'s lease from these items, where it still stands (by primary key and token),
   * and makes their entries due again: a claimed batch whose embedding failed is tried again at once.
   */
  async releaseClaim(token: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.unlease(token, ids);
    const now = new Date();
    await this.due.bulkWrite(
      ids.map((id) => ({
        updateOne: { filter: { _id: id, rev: token }, update: { $set: { due_at: now }, $unset: { token: '' } } },
      })),
      { ordered: false },
    );
  }

  /** Items waiting for a vector (all replicas; the backlog's size), as the due entries count them. */
  async countPending(): Promise<number> {
    return this.due.estimatedDocumentCount();
  }

  private async unlease(token: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.memories.bulkWrite(
      ids.map((id) => ({
        updateOne: {
          filter: { _id: id, embed_token: token },
          update: { $unset: { embed_lease_until: '', embed_token: '' } },
        },
      })),
      { ordered: false },
    );
  }
}
