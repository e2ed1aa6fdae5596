import type { MemoryType } from '../domain/agent.js';
import { matchesFilters, type FilterClause } from '../domain/memory-filter.js';
import type { MemorySummary, ScoredMemory } from '../domain/memory.js';
import { terms } from '../domain/text.js';
import { Posting } from './posting.js';

/** BM25 parameters (the usual Okapi defaults). */
const K1 = 1.2;
const B = 0.75;
/**
 * Weight of the neighbours' scores in an item's context score (see search and
 * docs/memory-search.md: chosen on LoCoMo's development conversations, flat from 1 to 2).
 */
const CONTEXT_WEIGHT = 1;
/**
 * Scores have six decimals, as the API reports them, so that min_score keeps every result whose
 * reported score is at least it (a reported score used as min_score keeps that result).
 */
const SCORE_UNIT = 1e6;
/**
 * The heap an index holds, estimated (bench/index-bytes.js measures it against the heap; see
 * docs/memory-search.md, "The cache's size"): per item, its object, id and maps; per character of
 * its content and of its metadata's JSON (two: a string of non-Latin-1 text takes two bytes a
 * character, and metadata lives as objects, not as its JSON); per distinct term of an item (its
 * count, and its entry in the term's posting); per distinct term of the agent (the posting); per
 * slot of the typed arrays, besides the vectors' 4 bytes a dimension.
 */
const ITEM_BYTES = 2_000;
const CHAR_BYTES = 2;
const ITEM_TERM_BYTES = 120;
const TERM_BYTES = 400;
const SLOT_BYTES = 80;

export type IndexableMemory = MemorySummary & {
  vector: Float32Array;
};

/** An indexed item; its vector lives only in the matrix. */
export type IndexedMemory = Omit<IndexableMemory, 'vector'>;

interface IndexedDoc extends IndexedMemory {
  termFreq: Map<string, number>;
  length: number;
  /** Row of this document in the vector matrix and the per-slot arrays. */
  slot: number;
  /** Its share of the index's estimated heap, as counted when it was indexed. */
  bytes: number;
}

export interface IndexQuery {
  text: string;
  vector: Float32Array;
  memoryType?: MemoryType;
  filters: readonly FilterClause[];
  topK: number;
  minScore: number;
  /** Weight of the lexical score; the embedding score gets 1 - lexicalWeight. */
  lexicalWeight: number;
  /** Items never returned (e.g. the turns already in a chat's history). */
  exclude?: (doc: IndexedMemory) => boolean;
}

/**
 * One agent's memory items held for search: an inverted index for BM25 and the unit vectors for
 * cosine similarity. Scores fuse both, each normalised to [0, 1] (see docs/memory-search.md):
 *   lexical = min(1, BM25(q, d) / sum of idf(t) over the query's terms)
 *   dense   = max(0, cos(q, d))
 *   fused   = w * lexical + (1 - w) * dense, or lexical alone where the item or the query has no
 *             vector yet (a missing signal is not a mismatch: see search)
 *   score   = max(fused, (fused + c * (near + next / 2)) / (1 + 1.5 * c))
 * where near and next are the best fused scores among the items written just before and after it
 * (one and two places away in creation order) and c = CONTEXT_WEIGHT.
 * Documents live in dense slots (0..size-1) so a query runs over typed arrays, not over maps of
 * objects. Vectors are stored column-major (dimension j of every slot is one contiguous run):
 * a query adds q[j] times column j into every slot's dot product, and skips the columns where
 * q[j] is 0. The local embedding of a short query has a few dozen non-zero dimensions out of
 * 384, so that is about a tenth of the multiply-adds of a row-by-row dot product, with the same
 * sums; a dense query (an embeddings endpoint) costs the same as row by row.
 */
export class MemoryIndex {
  private readonly byId = new Map<string, IndexedDoc>();
  /** The items' estimated heap (ITEM_BYTES and the rest, above). */
  private itemBytes = 0;
  private readonly slots: IndexedDoc[] = [];
  private readonly postings = new Map<string, Posting>();
  /** Column-major vectors: value j of slot s at j * capacity + s. */
  private columns = new Float32Array(0);
  private capacity = 0;
  private lengths = new Float64Array(0);
  /** 1 where the slot has a vector of the index's dimension, 0 while it waits for the backlog. */
  private embedded = new Uint8Array(0);
  private embeddedCount = 0;
  /** createdAt in milliseconds by slot: with the id, the key of the creation order. */
  private created = new Float64Array(0);
  /**
   * Slots in creation order (createdAt, then id) and each slot's place in it. Every write keeps
   * them in order (an item is placed by binary search, usually at the end, since memories come
   * in the order they are written), so a search never sorts the agent's items.
   */
  private order = new Int32Array(0);
  private place = new Int32Array(0);
  /** Per-query scratch, reused: search is synchronous, so no two queries share them at once. */
  private lexical = new Float64Array(0);
  private dense = new Float64Array(0);
  private queryDims = new Int32Array(0);
  private fused = new Float64Array(0);
  /** Fused scores by place in creation order, with two zeros either side (the context's neighbours). */
  private byPlace = new Float64Array(0);
  /** The embedded slots, when only some are (the dense scores skip the others). */
  private embeddedSlots = new Int32Array(0);
  /** The best topK so far, best first: slots and scores. */
  private topSlots = new Int32Array(0);
  private topScores = new Float64Array(0);
  private dimension = 0;
  private totalLength = 0;
  /** While upsertAll runs: the creation order is sorted once at its end, not kept item by item. */
  private loading = false;

  constructor(
    /** The agent's memory_version this index reflects. */
    public version: number,
    readonly provider: string,
  ) {}

  get size(): number {
    return this.slots.length;
  }

  /** The heap this index holds, estimated (what the cache of indexes is bounded by). */
  get bytes(): number {
    return this.itemBytes + this.postings.size * TERM_BYTES + this.capacity * (SLOT_BYTES + this.dimension * 4);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /**
   * Items may come before any vector does (the embedding backlog): the dimension is fixed by the
   * first vector, and the slots indexed before it get zero columns.
   */
  private ensureDimension(dimension: number): void {
    if (this.dimension !== 0 || dimension === 0) return;
    this.dimension = dimension;
    this.queryDims = new Int32Array(dimension);
    this.columns = new Float32Array(this.capacity * dimension);
  }

  private ensureCapacity(needed: number): void {
    if (needed <= this.capacity) return;
    const next = Math.max(needed, this.capacity * 2, 64);
    const dim = this.dimension;
    const columns = new Float32Array(next * dim);
    const used = this.slots.length;
    for (let j = 0; j < dim; j++)
      columns.set(this.columns.subarray(j * this.capacity, j * this.capacity + used), j * next);
    const lengths = new Float64Array(next);
    lengths.set(this.lengths);
    const embedded = new Uint8Array(next);
    embedded.set(this.embedded);
    this.columns = columns;
    this.lengths = lengths;
    this.embedded = embedded;
    this.created = grown(this.created, new Float64Array(next));
    this.order = grown(this.order, new Int32Array(next));
    this.place = grown(this.place, new Int32Array(next));
    this.lexical = new Float64Array(next);
    this.dense = new Float64Array(next);
    this.fused = new Float64Array(next);
    this.byPlace = new Float64Array(next + 4);
    this.embeddedSlots = new Int32Array(next);
    this.capacity = next;
  }

  /** Indexes a whole agent's items (a load from the database, in no particular order). */
  upsertAll(items: Iterable<IndexableMemory>): void {
    this.loading = true;
    try {
      for (const item of items) this.upsert(item);
    } finally {
      this.loading = false;
      this.sortOrder();
    }
  }

  upsert(item: IndexableMemory): void {
    const previous = this.byId.get(item.id);
    // The backlog's stored vector rewrites an item whose text is unchanged: its terms are kept.
    const { termFreq, length } = previous?.content === item.content ? previous : countTerms(item.content);
    this.remove(item.id);
    this.ensureDimension(item.vector.length);
    this.ensureCapacity(this.slots.length + 1);
    const slot = this.slots.length;
    const { vector, ...fields } = item;
    const bytes = estimatedItemBytes(item, termFreq.size);
    const doc: IndexedDoc = { ...fields, termFreq, length, slot, bytes };
    this.slots.push(doc);
    this.byId.set(item.id, doc);
    this.created[slot] = doc.createdAt.getTime();
    if (!this.loading) this.placeInOrder(slot);
    // No vector yet (or one of another length, never mixed in practice) scores as zero.
    const matches = vector.length === this.dimension;
    for (let j = 0; j < this.dimension; j++) this.columns[j * this.capacity + slot] = matches ? vector[j] : 0;
    this.embedded[slot] = matches && this.dimension > 0 ? 1 : 0;
    this.embeddedCount += this.embedded[slot];
    this.lengths[slot] = doc.length;
    this.totalLength += doc.length;
    this.itemBytes += bytes;
    for (const [term, tf] of termFreq) {
      let posting = this.postings.get(term);
      if (!posting) this.postings.set(term, (posting = new Posting()));
      posting.add(slot, tf);
    }
  }

  remove(id: string): void {
    const doc = this.byId.get(id);
    if (!doc) return;
    this.byId.delete(id);
    if (!this.loading) this.takeOutOfOrder(doc.slot);
    this.embeddedCount -= this.embedded[doc.slot];
    this.totalLength -= doc.length;
    this.itemBytes -= doc.bytes;
    for (const term of doc.termFreq.keys()) {
      const posting = this.postings.get(term)!;
      posting.delete(doc.slot);
      if (posting.size === 0) this.postings.delete(term);
    }
    // Keep slots dense: the last document moves into the freed slot.
    const last = this.slots.pop()!;
    if (last === doc) return;
    const from = last.slot;
    const to = doc.slot;
    this.slots[to] = last;
    last.slot = to;
    for (let j = 0; j < this.dimension; j++)
      this.columns[j * this.capacity + to] = this.columns[j * this.capacity + from];
    this.lengths[to] = this.lengths[from];
    this.embedded[to] = this.embedded[from];
    this.created[to] = this.created[from];
    this.order[this.place[from]] = to;
    this.place[to] = this.place[from];
    for (const term of last.termFreq.keys()) this.postings.get(term)!.move(from, to);
  }

  /** Whether slot a comes before slot b in creation order. */
  private createdBefore(a: number, b: number): boolean {
    const d = this.created[a] - this.created[b];
    return d !== 0 ? d < 0 : this.slots[a].id < this.slots[b].id;
  }

  /** Places a new last slot in the creation order. */
  private placeInOrder(slot: number): void {
    const { order, place } = this;
    const last = this.slots.length - 1;
    let lo = 0;
    let hi = last;
    if (last > 0 && this.createdBefore(order[last - 1], slot)) lo = last;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.createdBefore(order[mid], slot)) lo = mid + 1;
      else hi = mid;
    }
    order.copyWithin(lo + 1, lo, last);
    order[lo] = slot;
    for (let p = lo; p <= last; p++) place[order[p]] = p;
  }

  private sortOrder(): void {
    const n = this.slots.length;
    const sorted = Array.from({ length: n }, (_, i) => i).sort((a, b) =>
      a === b ? 0 : this.createdBefore(a, b) ? -1 : 1,
    );
    this.order.set(sorted);
    for (let p = 0; p < n; p++) this.place[this.order[p]] = p;
  }

  /** Takes a slot out of the creation order (before the slots are compacted). */
  private takeOutOfOrder(slot: number): void {
    const { order, place } = this;
    const last = this.slots.length - 1;
    const from = place[slot];
    order.copyWithin(from, from + 1, last + 1);
    for (let p = from; p < last; p++) place[order[p]] = p;
  }

  private idf(term: string): number {
    const n = this.slots.length;
    const df = this.postings.get(term)?.size ?? 0;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /** Normalised BM25 by slot into the lexical scratch (0 where no query term occurs). */
  private lexicalScores(text: string): Float64Array {
    const n = this.slots.length;
    const scores = this.lexical;
    scores.fill(0, 0, n);
    const queryTerms = [...new Set(terms(text))];
    if (queryTerms.length === 0 || n === 0) return scores;
    const avgLength = this.totalLength / n || 1;
    const lengths = this.lengths;
    let ceiling = 0;
    for (const term of queryTerms) {
      const idf = this.idf(term);
      ceiling += idf;
      const posting = this.postings.get(term);
      if (!posting) continue;
      const { slots, freqs } = posting;
      for (let i = 0; i < slots.length; i++) {
        const slot = slots[i];
        const tf = freqs[i];
        scores[slot] += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * lengths[slot]) / avgLength));
      }
    }
    for (let i = 0; i < n; i++) if (scores[i] > 0) scores[i] = Math.min(1, scores[i] / ceiling);
    return scores;
  }

  /**
   * Dot products of the query vector with every embedded slot into the dense scratch (all 0 if
   * not comparable; a slot without a vector is never read). While the backlog has not embedded
   * every item (a chatting agent's episodic memories), only the embedded slots are summed.
   */
  private denseScores(q: Float32Array): Float64Array {
    const n = this.slots.length;
    const dots = this.dense;
    dots.fill(0, 0, n);
    if (q.length !== this.dimension || this.embeddedCount === 0) return dots;
    const dims = this.queryDims;
    let count = 0;
    for (let j = 0; j < q.length; j++) if (q[j] !== 0) dims[count++] = j;
    const all = this.embeddedCount === n;
    const some = this.embeddedSlots;
    let m = 0;
    if (!all) for (let s = 0; s < n; s++) if (this.embedded[s] === 1) some[m++] = s;
    const columns = this.columns;
    const cap = this.capacity;
    let k = 0;
    // Four columns per pass: a quarter of the loads and stores of the accumulators.
    for (; k + 4 <= count; k += 4) {
      const a = dims[k] * cap;
      const b = dims[k + 1] * cap;
      const c = dims[k + 2] * cap;
      const d = dims[k + 3] * cap;
      const qa = q[dims[k]];
      const qb = q[dims[k + 1]];
      const qc = q[dims[k + 2]];
      const qd = q[dims[k + 3]];
      if (all) {
        for (let s = 0; s < n; s++)
          dots[s] += qa * columns[a + s] + qb * columns[b + s] + qc * columns[c + s] + qd * columns[d + s];
      } else {
        for (let i = 0; i < m; i++) {
          const s = some[i];
          dots[s] += qa * columns[a + s] + qb * columns[b + s] + qc * columns[c + s] + qd * columns[d + s];
        }
      }
    }
    for (; k < count; k++) {
      const a = dims[k] * cap;
      const qa = q[dims[k]];
      if (all) for (let s = 0; s < n; s++) dots[s] += qa * columns[a + s];
      else for (let i = 0; i < m; i++) dots[some[i]] += qa * columns[a + some[i]];
    }
    return dots;
  }

  /** Whether a candidate (score, slot) ranks before another: the higher score, then the newer item. */
  private ranksBefore(score: number, slot: number, otherScore: number, otherSlot: number): boolean {
    return score > otherScore || (score === otherScore && this.created[slot] > this.created[otherSlot]);
  }

  search(query: IndexQuery): ScoredMemory[] {
    const n = this.slots.length;
    const lexical = this.lexicalScores(query.text);
    const dense = this.denseScores(query.vector);
    const w = query.lexicalWeight;
    const fused = this.fused;
    // Without both vectors there is no dense signal, only a missing one: the item ranks by its
    // lexical score alone (an item just added, before the backlog embeds it, or any item while
    // the model loads or fails). Counting the missing signal as 0 would halve every score then,
    // and drop a direct lexical match below a chat's min_score.
    const queryEmbedded = query.vector.length > 0 && query.vector.length === this.dimension;
    const embedded = this.embedded;
    for (let slot = 0; slot < n; slot++) {
      const cosine = dense[slot];
      fused[slot] =
        queryEmbedded && embedded[slot] === 1
          ? Math.min(1, w * lexical[slot] + (1 - w) * (cosine > 0 ? cosine : 0))
          : lexical[slot];
    }
    const { order, place, byPlace } = this;
    // byPlace[p + 2] is the fused score of the item at place p; out of range is 0.
    byPlace[0] = byPlace[1] = byPlace[n + 2] = byPlace[n + 3] = 0;
    for (let p = 0; p < n; p++) byPlace[p + 2] = fused[order[p]];
    // The best topK, best first (a full sort of every score per query is wasted work).
    const k = query.topK;
    if (this.topSlots.length < k) {
      this.topSlots = new Int32Array(k);
      this.topScores = new Float64Array(k);
    }
    const { topSlots, topScores } = this;
    let found = 0;
    const checkDoc = query.memoryType !== undefined || query.filters.length > 0 || query.exclude !== undefined;
    for (let slot = 0; slot < n; slot++) {
      // Context: memories written one after another (a conversation's turns) explain each other,
      // so an item next to a strong match rises towards it; a strong match itself never drops.
      const own = fused[slot];
      const p = place[slot] + 2;
      const near = Math.max(byPlace[p - 1], byPlace[p + 1]);
      const next = Math.max(byPlace[p - 2], byPlace[p + 2]);
      const exact = Math.max(own, (own + CONTEXT_WEIGHT * (near + next / 2)) / (1 + 1.5 * CONTEXT_WEIGHT));
      const score = Math.round(exact * SCORE_UNIT) / SCORE_UNIT;
      if (score <= 0 || score < query.minScore) continue;
      if (found === k && !this.ranksBefore(score, slot, topScores[k - 1], topSlots[k - 1])) continue;
      if (checkDoc) {
        const doc = this.slots[slot];
        if (query.memoryType && doc.memoryType !== query.memoryType) continue;
        if (query.filters.length > 0 && !matchesFilters(doc.metadata, query.filters)) continue;
        if (query.exclude?.(doc)) continue;
      }
      // When full, the last one drops out.
      let i = found < k ? found++ : k - 1;
      for (; i > 0 && this.ranksBefore(score, slot, topScores[i - 1], topSlots[i - 1]); i--) {
        topSlots[i] = topSlots[i - 1];
        topScores[i] = topScores[i - 1];
      }
      topSlots[i] = slot;
      topScores[i] = score;
    }
    return Array.from({ length: found }, (_, i) => ({ item: this.slots[topSlots[i]], score: topScores[i] }));
  }

  /** Every document, for consolidation. */
  all(): IndexedMemory[] {
    return [...this.slots];
  }

  /** Document frequency of a term (consolidation uses rare terms to find candidate pairs). */
  documentFrequency(term: string): number {
    return this.postings.get(term)?.size ?? 0;
  }

  termsOf(id: string): string[] {
    return [...(this.byId.get(id)?.termFreq.keys() ?? [])];
  }

  /** The stored vector of an item (a copy gathered from the columns). */
  vectorOf(id: string): Float32Array | undefined {
    const doc = this.byId.get(id);
    if (!doc || this.dimension === 0) return undefined;
    const vector = new Float32Array(this.dimension);
    for (let j = 0; j < this.dimension; j++) vector[j] = this.columns[j * this.capacity + doc.slot];
    return vector;
  }
}

/** A text's index terms, each with its count, and their total. */
function countTerms(content: string): { termFreq: Map<string, number>; length: number } {
  const termFreq = new Map<string, number>();
  const list = terms(content);
  for (const term of list) termFreq.set(term, (termFreq.get(term) ?? 0) + 1);
  return { termFreq, length: list.length };
}

function estimatedItemBytes(item: IndexableMemory, distinctTerms: number): number {
  const metadataChars = JSON.stringify(item.metadata)?.length ?? 0;
  return ITEM_BYTES + CHAR_BYTES * (item.content.length + metadataChars) + ITEM_TERM_BYTES * distinctTerms;
}

/** `into` with `from`'s values at its start. */
function grown<T extends Float64Array | Int32Array>(from: T, into: T): T {
  into.set(from);
  return into;
}
