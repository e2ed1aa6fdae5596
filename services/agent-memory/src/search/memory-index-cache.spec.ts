import { createLogger } from '@agentplatform/service-kit';
import type { MemoryItem } from '../domain/memory.js';
import { LocalEmbeddingProvider, localEmbedding } from '../embeddings/local-embedding.js';
import { MemoryIndexCache } from './memory-index-cache.js';

const item = (id: string, content: string, agentId = 'agt_1'): MemoryItem => ({
  id,
  tenantId: 'ten_1',
  agentId,
  memoryType: 'semantic',
  content,
  metadata: {},
  embedding: { provider: 'local-hash-v1', dimension: 384, vector: localEmbedding(content) },
  mergedFrom: [],
  createdAt: new Date(),
  updatedAt: new Date(),
});

describe('MemoryIndexCache', () => {
  let stored: MemoryItem[];
  let loads: number;
  let cache: MemoryIndexCache;

  beforeEach(() => {
    stored = [item('m1', 'first fact')];
    loads = 0;
    const repository = {
      loadAgent: async (_tenantId: string, agentId: string) => {
        loads++;
        return stored.filter((i) => i.agentId === agentId).map((i) => ({ ...i }));
      },
    };
    cache = new MemoryIndexCache(repository, new LocalEmbeddingProvider(), 2 ** 20, createLogger('test', 'silent'));
  });

  it('serves a version from memory and applies this replica’s writes in version order', async () => {
    const index = await cache.get('ten_1', 'agt_1', 0);
    expect(await cache.get('ten_1', 'agt_1', 0)).toBe(index);
    cache.apply('ten_1', 'agt_1', 2, { upsert: [item('m3', 'third fact')] });
    cache.apply('ten_1', 'agt_1', 1, { upsert: [item('m2', 'second fact')] });
    expect(index.version).toBe(2);
    const again = await cache.get('ten_1', 'agt_1', 2);
    expect(again).toBe(index);
    expect(loads).toBe(1);
    expect(again.size).toBe(3);
    cache.apply('ten_1', 'agt_1', 3, { remove: ['m1'] });
    expect((await cache.get('ten_1', 'agt_1', 3)).has('m1')).toBe(false);
    expect(loads).toBe(1);
  });

  it('reloads when the agent moved past a version this replica did not write', async () => {
    await cache.get('ten_1', 'agt_1', 0);
    stored.push(item('m9', 'written elsewhere'));
    cache.apply('ten_1', 'agt_1', 2, { upsert: [item('m2', 'mine')] });
    const index = await cache.get('ten_1', 'agt_1', 2);
    expect(loads).toBe(2);
    expect(index.has('m9')).toBe(true);
    expect(index.version).toBe(2);
  });

  it('serves an index already past the version read (this replica applied writes since)', async () => {
    const index = await cache.get('ten_1', 'agt_1', 0);
    cache.apply('ten_1', 'agt_1', 1, { upsert: [item('m2', 'second fact')] });
    // A search that read version 0 before the write finished: the newer index holds all of 0.
    expect(await cache.get('ten_1', 'agt_1', 0)).toBe(index);
    expect(loads).toBe(1);
  });

  it('gives the answer to this replica’s own bump a turn of the event loop before reloading', async () => {
    const index = await cache.get('ten_1', 'agt_1', 0);
    // The version was read as 1 while the answer to the bump that made it waits to be read.
    setImmediate(() => cache.apply('ten_1', 'agt_1', 1, { upsert: [item('m2', 'second fact')] }));
    const served = await cache.get('ten_1', 'agt_1', 1);
    expect(served).toBe(index);
    expect(served.has('m2')).toBe(true);
    expect(loads).toBe(1);
  });

  it('loads one agent once for concurrent searches', async () => {
    await Promise.all([cache.get('ten_1', 'agt_1', 5), cache.get('ten_1', 'agt_1', 5), cache.get('ten_1', 'agt_1', 5)]);
    expect(loads).toBe(1);
  });

  it('keeps its bound while this replica’s writes grow an index, dropping the least recently searched', async () => {
    // Two agents fit in the bound (a megabyte); the writes to the second one outgrow it.
    stored.push(item('n1', 'another agent’s fact', 'agt_2'));
    await cache.get('ten_1', 'agt_1', 0);
    const second = await cache.get('ten_1', 'agt_1', 0).then(() => cache.get('ten_1', 'agt_2', 0));
    expect(loads).toBe(2);
    const words = Array.from({ length: 200 }, (_, i) => `term${i}`).join(' ');
    for (let v = 1; v <= 200; v++)
      cache.apply('ten_1', 'agt_2', v, { upsert: [item(`n${v + 1}`, `${words} ${v}`, 'agt_2')] });
    expect(second.bytes).toBeGreaterThan(2 ** 20);
    expect(await cache.get('ten_1', 'agt_2', 200)).toBe(second);
    // agt_1's index was dropped for it: its next search loads it again.
    await cache.get('ten_1', 'agt_1', 0);
    expect(loads).toBe(3);
  });
});
