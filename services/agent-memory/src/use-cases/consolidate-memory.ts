import { createEvent } from '@agentplatform/events/catalogue';
import { NotFoundError, ValidationError } from '@agentplatform/service-kit';
import type { MemoryItem } from '../domain/memory.js';
import { dot } from '../embeddings/embedding-provider.js';
import type { IndexedMemory, MemoryIndex } from '../search/memory-index.js';
import type { UseCaseDeps } from './deps.js';
import { bumped } from './memory-version.js';

export interface ConsolidationResult {
  groups: Array<{ keptId: string; mergedIds: string[] }>;
  merged: number;
  removed: number;
  remaining: number;
}

/** Terms per item used to find candidate pairs: the rarest ones, which near-duplicates share. */
const BLOCKING_TERMS = 3;

/**
 * Candidate pairs without comparing every pair (10k items would be 50M comparisons): items are
 * bucketed by their rarest terms, and only items sharing a bucket are compared. Items without
 * terms are bucketed by their exact normalised text.
 */
function candidates(index: MemoryIndex, docs: IndexedMemory[]): Map<string, Set<IndexedMemory>> {
  const buckets = new Map<string, IndexedMemory[]>();
  for (const doc of docs) {
    const terms = index.termsOf(doc.id);
    const keys = terms.length
      ? terms
          .map((t) => [t, index.documentFrequency(t)] as const)
          .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
          .slice(0, BLOCKING_TERMS)
          .map(([t]) => `t:${doc.memoryType}:${t}`)
      : [`x:${doc.memoryType}:${doc.content.trim().toLowerCase()}`];
    for (const key of keys) {
      const bucket = buckets.get(key);
      if (bucket) bucket.push(doc);
      else buckets.set(key, [doc]);
    }
  }
  const out = new Map<string, Set<IndexedMemory>>();
  for (const bucket of buckets.values()) {
    if (bucket.length < 2) continue;
    for (const doc of bucket) {
      let set = out.get(doc.id);
      if (!set) out.set(doc.id, (set = new Set()));
      for (const other of bucket) if (other !== doc) set.add(other);
    }
  }
  return out;
}

/**
 * Merges near-duplicates: items of the same memory type whose embeddings' cosine similarity is at
 * least the threshold. Greedy, so every merged item is similar to the item it merges into (no
 * chains drifting A~B~C): the longest item (then the oldest) keeps its content; the others are
 * recorded in its `merged_from` (id, content, metadata, created_at), their metadata keys fill in
 * keys the kept item lacks, and they are deleted.
 */
export async function consolidateMemory(
  deps: UseCaseDeps,
  input: { tenantId: string; agentId: string; threshold?: number },
): Promise<ConsolidationResult> {
  const { tenantId, agentId, threshold } = input;
  const limit = threshold ?? deps.settings.consolidateThreshold;
  if (!(limit >= 0.5 && limit <= 1)) throw ValidationError.field('threshold', 'must be a number from 0.5 to 1');
  if ((await deps.agents.memoryVersion(tenantId, agentId)) === undefined) throw new NotFoundError('Agent');
  // Duplicates are found by their vectors: items still waiting for one get it now.
  await deps.backlog.drainAgent(tenantId, agentId);
  const version = await deps.agents.memoryVersion(tenantId, agentId);
  if (version === undefined) throw new NotFoundError('Agent');
  const index = await deps.index.get(tenantId, agentId, version);
  const docs = index
    .all()
    .sort(
      (a, b) =>
        b.content.length - a.content.length || a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1),
    );
  const pairs = candidates(index, docs);
  const taken = new Set<string>();
  const groups: Array<{ kept: IndexedMemory; absorbed: IndexedMemory[] }> = [];
  for (const doc of docs) {
    if (taken.has(doc.id)) continue;
    taken.add(doc.id);
    const vector = index.vectorOf(doc.id);
    const similar = (other: IndexedMemory) => {
      const otherVector = index.vectorOf(other.id);
      return vector !== undefined && otherVector !== undefined && dot(vector, otherVector) >= limit;
    };
    const absorbed = [...(pairs.get(doc.id) ?? [])]
      .filter((other) => !taken.has(other.id) && other.memoryType === doc.memoryType && similar(other))
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    for (const other of absorbed) taken.add(other.id);
    if (absorbed.length > 0) groups.push({ kept: doc, absorbed });
  }

  const now = new Date();
  const upserts: MemoryItem[] = [];
  const removed: string[] = [];
  const remaining = await deps.outbox.run(async (session) => {
    upserts.length = 0;
    removed.length = 0;
    for (const { kept, absorbed } of groups) {
      let metadata: Record<string, unknown> = {};
      for (const other of absorbed) metadata = { ...metadata, ...other.metadata };
      metadata = { ...metadata, ...kept.metadata };
      const mergedItems: MemoryItem[] = absorbed.map((a) => ({ ...a, tenantId, mergedFrom: [], updatedAt: now }));
      await deps.memories.mergeInto(tenantId, kept.id, metadata, mergedItems, now, session);
      removed.push(...absorbed.map((a) => a.id));
      const updated = await deps.memories.find(tenantId, kept.id, session);
      if (updated) upserts.push(updated);
    }
    const remaining = await deps.memories.count(tenantId, agentId, session);
    const event = createEvent('memory.consolidated', tenantId, {
      agent_id: agentId,
      merged: groups.length,
      removed: removed.length,
      remaining,
    });
    return { result: remaining, events: [event] };
  });
  await deps.quotas.release(agentId, 'memories', removed.length);
  if (groups.length > 0) await bumped(deps, tenantId, agentId, { upsert: upserts, remove: removed });
  return {
    groups: groups.map((g) => ({ keptId: g.kept.id, mergedIds: g.absorbed.map((a) => a.id) })),
    merged: groups.length,
    removed: removed.length,
    remaining,
  };
}
