import { parseFilters } from '../domain/memory-filter.js';
import { terms } from '../domain/text.js';
import { localEmbedding } from '../embeddings/local-embedding.js';
import { MemoryIndex } from './memory-index.js';

function indexOf(contents: Array<[string, string, Record<string, unknown>?]>): MemoryIndex {
  const index = new MemoryIndex(1, 'local-hash-v1');
  contents.forEach(([id, content, metadata], n) =>
    index.upsert({
      id,
      agentId: 'agt_1',
      memoryType: 'semantic',
      content,
      metadata: metadata ?? {},
      createdAt: new Date(1000 + n),
      vector: localEmbedding(content),
    }),
  );
  return index;
}

const query = (index: MemoryIndex, text: string, extra: Partial<Parameters<MemoryIndex['search']>[0]> = {}) =>
  index.search({
    text,
    vector: localEmbedding(text),
    filters: [],
    topK: 10,
    minScore: 0,
    lexicalWeight: 0.5,
    ...extra,
  });

describe('MemoryIndex', () => {
  const corpus: Array<[string, string, Record<string, unknown>?]> = [
    ['a', 'Refunds are processed within five business days.', { kind: 'billing', n: 1 }],
    ['b', 'The office dog is called Biscuit.', { kind: 'office', n: 2 }],
    ['c', 'Shipping to Canada takes a week.', { kind: 'logistics', n: 3 }],
    ['d', 'Refund requests need the order number.', { kind: 'billing', n: 4 }],
  ];

  it('ranks by the fused score, best first, every score in [0, 1]', () => {
    const results = query(indexOf(corpus), 'how are refunds processed');
    expect(results[0].item.id).toBe('a');
    expect(results.map((r) => r.item.id).indexOf('d')).toBeLessThan(results.map((r) => r.item.id).indexOf('c'));
    for (const r of results) {
      expect(r.score).toBeGreaterThan(0);
      expect(r.score).toBeLessThanOrEqual(1);
    }
    expect(results.map((r) => r.score)).toEqual([...results.map((r) => r.score)].sort((x, y) => y - x));
  });

  it('gives an exact repeat of an item a score near 1', () => {
    const [best] = query(indexOf(corpus), 'The office dog is called Biscuit.');
    expect(best.item.id).toBe('b');
    expect(best.score).toBeGreaterThan(0.9);
  });

  it('keeps working after removals and updates move documents between slots', () => {
    const index = indexOf(corpus);
    index.remove('a');
    index.upsert({
      id: 'b',
      agentId: 'agt_1',
      memoryType: 'semantic',
      content: 'Biscuit retired; the office cat is Pixel.',
      metadata: {},
      createdAt: new Date(),
      vector: localEmbedding('Biscuit retired; the office cat is Pixel.'),
    });
    expect(index.size).toBe(3);
    expect(query(index, 'refunds processed').map((r) => r.item.id)).not.toContain('a');
    expect(query(index, 'office cat Pixel')[0].item.id).toBe('b');
    expect(query(index, 'shipping Canada')[0].item.id).toBe('c');
    expect(query(index, 'refund order number')[0].item.id).toBe('d');
  });

  it('applies top_k, min_score, memory type and metadata filters', () => {
    const index = indexOf(corpus);
    expect(query(index, 'refund', { topK: 1 })).toHaveLength(1);
    const all = query(index, 'refund shipping dog');
    const cut = all[1].score;
    const kept = query(index, 'refund shipping dog', { minScore: cut });
    // A score the caller was given, used as min_score, keeps its result (scores have six decimals).
    expect(kept.map((r) => r.item.id)).toEqual(all.filter((r) => r.score >= cut).map((r) => r.item.id));
    expect(kept.map((r) => r.item.id)).toContain(all[1].item.id);
    expect(all.every((r) => r.score === Math.round(r.score * 1e6) / 1e6)).toBe(true);
    expect(query(index, 'refund', { memoryType: 'episodic' })).toEqual([]);
    const billing = query(index, 'refund shipping dog', { filters: parseFilters({ kind: 'billing', n: { gt: 1 } }) });
    expect(billing.map((r) => r.item.id)).toEqual(['d']);
  });

  it('lifts an item written next to a strong match above an unrelated one, never above the match', () => {
    const index = indexOf([
      ['q', 'Did you adopt the puppy from the shelter?'],
      ['r', 'Yes, last Saturday, she is lovely.'],
      ['s', 'Weather was nice all week.'],
      ['t', 'Unrelated note about invoices.'],
      ['u', 'Another unrelated note about taxes.'],
      ['v', 'Yes, the meeting went fine.'],
    ]);
    const ids = query(index, 'puppy shelter adopt yes').map((r) => r.item.id);
    expect(ids[0]).toBe('q');
    expect(ids.indexOf('r')).toBeLessThan(ids.indexOf('v'));
  });

  it('ranks an item lexically alone while it or the query has no vector, never halving its score', () => {
    // The chat's case (issue 15): a memory just added, before the backlog embeds it. Counted as a
    // dense score of 0, its lexical match (one of the query's three terms: 0.14) scored 0.07,
    // under a chat's min_score, and the chat answered that it knew nothing.
    const contents = [
      'Refunds are processed within 5 business days after the return arrives.',
      'The office dog is called Biscuit.',
    ];
    const pending = new MemoryIndex(1, 'minilm');
    contents.forEach((content, n) =>
      pending.upsert({
        id: `m${n}`,
        agentId: 'agt_1',
        memoryType: 'semantic',
        content,
        metadata: {},
        createdAt: new Date(1000 + n),
        vector: new Float32Array(0),
      }),
    );
    const asked = 'How long do refunds take?';
    const lexicalOnly = query(pending, asked, { minScore: 0.1 });
    expect(lexicalOnly.map((r) => r.item.id)).toEqual(['m0']);
    expect(lexicalOnly[0].score).toBeCloseTo(0.14, 2);
    // An embedded neighbour arrives; the pending item keeps its lexical score, the embedded one fuses.
    pending.upsert({
      id: 'm2',
      agentId: 'agt_1',
      memoryType: 'semantic',
      content: 'Refunds go back to the original card.',
      metadata: {},
      createdAt: new Date(1002),
      vector: localEmbedding('Refunds go back to the original card.'),
    });
    const mixed = query(pending, asked, { topK: 3 });
    const own = query(pending, asked, { topK: 3, vector: new Float32Array(0) });
    expect(mixed.find((r) => r.item.id === 'm0')!.score).toBeCloseTo(own.find((r) => r.item.id === 'm0')!.score, 9);
    // A query without a vector (model loading or failed) ranks every item lexically.
    const embedded = indexOf(contents.map((content, n) => [`m${n}`, content]));
    const noQueryVector = query(embedded, asked, { minScore: 0.1, vector: new Float32Array(0) });
    expect(noQueryVector.map((r) => r.item.id)).toEqual(['m0']);
    expect(noQueryVector[0].score).toBeCloseTo(lexicalOnly[0].score, 9);
  });

  it('returns nothing for an empty index or a query sharing nothing', () => {
    expect(query(new MemoryIndex(0, 'x'), 'anything')).toEqual([]);
    expect(query(indexOf(corpus), 'zzzz qqqq', { minScore: 0.2 })).toEqual([]);
  });

  /**
   * A plain re-implementation of docs/memory-search.md over whole documents, to hold the
   * index's typed-array bookkeeping (column-major vectors, sparse query dimensions, the creation
   * order kept by every write, the dense scores of only the embedded items) to it.
   */
  const formula = (docs: Map<string, { content: string; createdAt: number; embedded: boolean }>, text: string) => {
    const all = [...docs].map(([id, d]) => ({
      id,
      createdAt: d.createdAt,
      terms: terms(d.content),
      vector: d.embedded ? localEmbedding(d.content) : undefined,
    }));
    const avg = all.reduce((sum, d) => sum + d.terms.length, 0) / all.length;
    const queryTerms = [...new Set(terms(text))];
    const idf = (t: string) => {
      const df = all.filter((d) => d.terms.includes(t)).length;
      return Math.log(1 + (all.length - df + 0.5) / (df + 0.5));
    };
    const ceiling = queryTerms.reduce((sum, t) => sum + idf(t), 0);
    const q = localEmbedding(text);
    const fused = new Map(
      all.map((d) => {
        let bm25 = 0;
        for (const t of queryTerms) {
          const tf = d.terms.filter((x) => x === t).length;
          if (tf > 0) bm25 += (idf(t) * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * d.terms.length) / avg));
        }
        const lexical = Math.min(1, bm25 / ceiling);
        if (!d.vector) return [d.id, lexical];
        const cosine = d.vector.reduce((sum, v, j) => sum + v * q[j], 0);
        return [d.id, Math.min(1, 0.5 * lexical + 0.5 * Math.max(0, cosine))];
      }),
    );
    // Context: neighbours in creation order (createdAt, then id).
    const order = [...all]
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((d) => d.id);
    const at = (i: number) => (i >= 0 && i < order.length ? fused.get(order[i])! : 0);
    return new Map(
      order.map((id, i) => {
        const own = fused.get(id)!;
        const context = (own + Math.max(at(i - 1), at(i + 1)) + Math.max(at(i - 2), at(i + 2)) / 2) / 2.5;
        return [id, Math.max(own, context)];
      }),
    );
  };

  const randomWriter = (seed: number, createdAt: () => number, embedded: () => boolean) => {
    const vocabulary =
      'refund policy return order shipping invoice password account backup region plan canada laptop trial'.split(' ');
    const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    const sentence = (words: number) =>
      Array.from({ length: words }, () => vocabulary[Math.floor(random() * vocabulary.length)]).join(' ');
    const docs = new Map<string, { content: string; createdAt: number; embedded: boolean }>();
    const index = new MemoryIndex(1, 'local-hash-v1');
    const put = (id: string, content: string, at = createdAt(), withVector = embedded()) => {
      docs.set(id, { content, createdAt: at, embedded: withVector });
      index.upsert({
        id,
        agentId: 'agt_1',
        memoryType: 'semantic',
        content,
        metadata: {},
        createdAt: new Date(at),
        vector: withVector ? localEmbedding(content) : new Float32Array(0),
      });
    };
    const remove = (id: string) => {
      index.remove(id);
      docs.delete(id);
    };
    return { random, sentence, docs, index, put, remove };
  };

  const expectFormula = (
    index: MemoryIndex,
    docs: Map<string, { content: string; createdAt: number; embedded: boolean }>,
  ) => {
    for (const text of [
      'refund policy for canada',
      'laptop trial plan',
      'backup of the account password region',
      'zebra',
    ]) {
      const want = formula(docs, text);
      const got = query(index, text, { topK: 100 });
      expect(got.length).toBe(Math.min(100, [...want.values()].filter((v) => v > 0).length));
      // The formula's value, to the six decimals a score has.
      const sixDecimals = (score: number) => Math.round(score * 1e6) / 1e6;
      for (const r of got) expect(r.score).toBe(sixDecimals(want.get(r.item.id)!));
      const best = [...want.values()].sort((x, y) => y - x);
      got.forEach((r, i) => expect(r.score).toBe(sixDecimals(best[i])));
    }
  };

  it('scores exactly the documented formula, also after updates, removals and growth', () => {
    const { sentence, docs, index, put, remove } = randomWriter(
      7,
      () => 1000,
      () => true,
    );
    for (let i = 0; i < 150; i++) put(`m${i}`, sentence(3 + (i % 9)));
    for (let i = 0; i < 150; i += 7) remove(`m${i}`);
    for (let i = 1; i < 150; i += 11) put(`m${i}`, sentence(5));
    expectFormula(index, docs);
    expect(index.vectorOf('m1')).toEqual(localEmbedding(docs.get('m1')!.content));
  });

  it('keeps the creation order through writes out of order, equal times, removals and vectors stored later', () => {
    let clock = 5000;
    // Mostly in order, as memories are written; now and then an older item, or one of the same millisecond.
    const { random, sentence, docs, index, put, remove } = randomWriter(
      11,
      () => (random() < 0.2 ? 1000 + Math.floor(random() * 4000) : random() < 0.3 ? clock : ++clock),
      () => random() < 0.4,
    );
    for (let i = 0; i < 300; i++) {
      put(`m${Math.floor(random() * 1000)}`, sentence(2 + Math.floor(random() * 10)));
      if (i % 5 === 4) remove([...docs.keys()][Math.floor(random() * docs.size)]);
      if (i % 7 === 6) {
        // The backlog stores a vector: same id, text and time.
        const [id, doc] = [...docs][Math.floor(random() * docs.size)];
        put(id, doc.content, doc.createdAt, true);
      }
      if (i % 50 === 49) expectFormula(index, docs);
    }
    // A load from the database gets the items in no particular order, all at once.
    const loaded = new MemoryIndex(1, 'local-hash-v1');
    const asStored = ([id, doc]: [string, { content: string; createdAt: number; embedded: boolean }]) => ({
      id,
      agentId: 'agt_1',
      memoryType: 'semantic' as const,
      content: doc.content,
      metadata: {},
      createdAt: new Date(doc.createdAt),
      vector: doc.embedded ? localEmbedding(doc.content) : new Float32Array(0),
    });
    loaded.upsertAll([...docs].sort(() => random() - 0.5).map(asStored));
    expectFormula(loaded, docs);
    // Writes after the load keep its order.
    put('late', 'refund policy for canada', 4000, true);
    loaded.upsert(asStored(['late', docs.get('late')!]));
    expectFormula(loaded, docs);
  });

  it('breaks a tie in score by recency, newest first', () => {
    const index = new MemoryIndex(1, 'local-hash-v1');
    for (const [id, at] of [
      ['old', 1000],
      ['new', 3000],
      ['mid', 2000],
    ] as const) {
      index.upsert({
        id,
        agentId: 'agt_1',
        memoryType: 'semantic',
        content: 'same words',
        metadata: {},
        createdAt: new Date(at),
        vector: new Float32Array(0),
      });
    }
    const ranked = query(index, 'same words', { topK: 2, vector: new Float32Array(0) });
    expect(ranked.map((r) => r.item.id)).toEqual(['new', 'mid']);
    expect(ranked[0].score).toBe(ranked[1].score);
  });

  it('estimates its heap by what its items hold, and gives an item’s share back when it goes', () => {
    const index = indexOf([['a', 'Refunds are processed within five business days.']]);
    const one = index.bytes;
    const varied = Array.from({ length: 1_000 }, (_, i) => `word${i}`).join(' ');
    const repeated = Array.from({ length: 1_000 }, () => 'word').join(' ');
    index.upsert({
      id: 'r',
      agentId: 'agt_1',
      memoryType: 'semantic',
      content: repeated,
      metadata: {},
      createdAt: new Date(2000),
      vector: localEmbedding(repeated),
    });
    const withRepeated = index.bytes;
    index.upsert({
      id: 'v',
      agentId: 'agt_1',
      memoryType: 'semantic',
      content: varied,
      metadata: {},
      createdAt: new Date(3000),
      vector: localEmbedding(varied),
    });
    // A thousand distinct terms cost far more than one term a thousand times (its postings).
    expect(index.bytes - withRepeated).toBeGreaterThan(10 * (withRepeated - one));
    index.remove('v');
    index.remove('r');
    expect(index.bytes).toBe(one);
  });
});
