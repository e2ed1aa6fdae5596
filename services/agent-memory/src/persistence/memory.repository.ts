import { randomUUID } from 'node:crypto';
import { documentsOf, findPage, findSorted, insertEach, NewestIds, pageTotal } from '@agentplatform/service-kit';
import type { ClientSession, Connection, Model } from 'mongoose';
import type { MemoryType } from '../domain/agent.js';
import type { MemoryItem } from '../domain/memory.js';
import { embeddingDueModel, type EmbeddingDueDocument } from './embedding-due.schema.js';
import { fromMemoryItem, toMemoryItem } from './memory.mapping.js';
import { memoryModel, type MemoryDocument } from './memory.schema.js';

export interface MemoryChanges {
  content?: string;
  metadata?: Record<string, unknown>;
  memoryType?: MemoryType;
}

/** A new backlog entry for an item that waits for a vector: due at once. */
function openEntry(item: Pick<MemoryItem, 'id' | 'tenantId' | 'agentId' | 'content'>, now: Date): EmbeddingDueDocument {
  return {
    _id: item.id,
    tenant_id: item.tenantId,
    agent_id: item.agentId,
    length: item.content.length,
    due_at: now,
    rev: randomUUID(),
  };
}

/** What a list's page leaves out: the vectors. */
const LIST_PROJECTION = { 'embedding.vector': 0 } as const;

/**
 * Memory items. An item without a vector of the current embedder also has an entry in the
 * embedding backlog's due collection (embedding-due.schema.ts), written after the item: a crash in
 * between leaves an item the backlog's start-up pass finds (EmbeddingBacklogRepository.openMissing).
 */
export class MemoryRepository {
  private readonly model: Model<MemoryDocument>;
  private readonly due: Model<EmbeddingDueDocument>;

  /** Each agent's newest memory ids: what the first page of an agent's list reads (newest-ids.ts). */
  readonly newest: NewestIds;

  constructor(connection: Connection) {
    this.model = memoryModel(connection);
    this.due = embeddingDueModel(connection);
    this.newest = new NewestIds(connection, 'memory_windows');
  }

  async init(): Promise<void> {
    await Promise.all([this.model.init(), this.due.init()]);
  }

  /**
   * Inserts new items (no vector yet) in one round trip, unordered, then their backlog entries in
   * another: answers per item undefined when stored, or the error that item met (the others are
   * stored regardless). The documents are the schema's fields exactly, written without mongoose's
   * per-document casting.
   */
  async insertMany(items: MemoryItem[]): Promise<Array<undefined | Error>> {
    await this.newest.add(items.map((item) => ({ parentId: item.agentId, id: item.id })));
    const outcomes = await insertEach(documentsOf<MemoryDocument>(this.model), items.map(fromMemoryItem));
    const now = new Date();
    const waiting = items.filter((item, n) => outcomes[n] === undefined && !item.embedding);
    if (waiting.length > 0) {
      const opened = await insertEach(
        documentsOf<EmbeddingDueDocument>(this.due),
        waiting.map((item) => openEntry(item, now)),
      );
      const failed = opened.find((outcome) => outcome !== undefined);
      if (failed) throw failed;
    }
    return outcomes;
  }

  /** Deletes the tenant's items of these ids (a group write whose agent was deleted meanwhile). */
  async deleteIds(tenantId: string, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const [deleted] = await Promise.all([
      this.model.deleteMany({ tenant_id: tenantId, _id: { $in: ids } }),
      this.due.deleteMany({ _id: { $in: ids } }),
    ]);
    return deleted.deletedCount;
  }

  async find(tenantId: string, id: string, session?: ClientSession): Promise<MemoryItem | undefined> {
    const doc = await this.model.findOne({ _id: id, tenant_id: tenantId }, null, { session }).lean<MemoryDocument>();
    return doc ? toMemoryItem(doc) : undefined;
  }

  /**
   * A page of the tenant's items, newest first, and the list's total: from `count` when given and
   * the page does not end the list (counting scans every memory on the stand-in).
   */
  async list(
    tenantId: string,
    filter: { agentId?: string; memoryType?: string },
    skip: number,
    limit: number,
    count?: () => Promise<number>,
  ): Promise<{ items: MemoryItem[]; total: number }> {
    const query: Record<string, unknown> = { tenant_id: tenantId };
    if (filter.agentId) query.agent_id = filter.agentId;
    if (filter.memoryType) query.memory_type = filter.memoryType;
    const options = { sort: { _id: -1 as const }, skip, limit, projection: LIST_PROJECTION, count };
    if (!filter.agentId || skip > 0) {
      const { docs, total } = await findPage(this.model, query, options);
      return { items: docs.map(toMemoryItem), total };
    }
    // An agent's first page: by `_id` from its window (the sorted query scans every memory on the
    // stand-in).
    const docs = await this.newest.page(filter.agentId, limit, {
      byIds: async (ids) =>
        (await this.model.find({ _id: { $in: ids } }, LIST_PROJECTION).lean<MemoryDocument[]>()).filter(
          (d) =>
            d.tenant_id === tenantId &&
            d.agent_id === filter.agentId &&
            (!filter.memoryType || d.memory_type === filter.memoryType),
        ),
      largestIds: async (keep) =>
        (
          await this.model
            .find({ tenant_id: tenantId, agent_id: filter.agentId }, { _id: 1 })
            .sort({ _id: -1 })
            .limit(keep)
            .lean<Array<{ _id: string }>>()
        ).map((d) => d._id),
      // The total is taken below: the sorted query alone.
      scan: () => findSorted(this.model, query, options),
    });
    const total = await pageTotal(docs.length, options, () => this.model.countDocuments(query));
    return { items: docs.map(toMemoryItem), total };
  }

  /** Every item of one agent with its vector, for the search index. */
  async loadAgent(tenantId: string, agentId: string): Promise<MemoryItem[]> {
    const docs = await this.model
      .find({ tenant_id: tenantId, agent_id: agentId }, { merged_from: 0 })
      .lean<MemoryDocument[]>();
    return docs.map(toMemoryItem);
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
      .lean<MemoryDocument>();
    if (!doc) return undefined;
    const item = toMemoryItem(doc);
    if (changes.content !== undefined) {
      // A new rev: a batch that looked the old content up can no longer close the entry.
      const { _id, ...entry } = openEntry(item, now);
      await this.due.updateOne({ _id }, { $set: entry, $unset: { token: '' } }, { upsert: true });
    }
    return item;
  }

  async delete(tenantId: string, id: string): Promise<MemoryItem | undefined> {
    const doc = await this.model
      .findOneAndDelete({ _id: id, tenant_id: tenantId }, { projection: { embedding: 0 } })
      .lean<MemoryDocument>();
    if (!doc) return undefined;
    await this.due.deleteOne({ _id: id });
    return toMemoryItem(doc);
  }

  /** A new agent: its memory window is complete from the start (no memory is older than it). */
  async openAgent(agentId: string): Promise<void> {
    await this.newest.open(agentId);
  }

  /**
   * Deletes the agent's memories. An agent that never stored one (its window opened with it and
   * still empty: every add enters its id first) is not looked for: a delete by agent scans every
   * memory on the stand-in.
   */
  async deleteAgent(tenantId: string, agentId: string): Promise<number> {
    let deleted = 0;
    if (!(await this.newest.isEmpty(agentId))) {
      const [memories] = await Promise.all([
        this.model.deleteMany({ tenant_id: tenantId, agent_id: agentId }),
        this.due.deleteMany({ tenant_id: tenantId, agent_id: agentId }),
      ]);
      deleted = memories.deletedCount;
    }
    await this.newest.remove([agentId]);
    return deleted;
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
    const ids = absorbed.map((a) => a.id);
    await this.model.deleteMany({ tenant_id: tenantId, _id: { $in: ids } }, { session });
    await this.due.deleteMany({ _id: { $in: ids } }, { session });
  }
}
