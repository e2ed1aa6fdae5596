import { createLogger } from '@agentplatform/service-kit';
import type { EmbeddingProvider } from '../embeddings/embedding-provider.js';
import { BEHIND_GRACE_MS, BEHIND_MEMORY_MS, QueryEmbeddings } from './query-embeddings.js';

/** An embedder that records what it was asked, and can be told to fail or to be still loading. */
function recordingEmbedder() {
  const calls: string[][] = [];
  const embedder: EmbeddingProvider & { failing: boolean; ready: boolean; waitMs: number } = {
    id: 'recording',
    failing: false,
    ready: true,
    waitMs: 0,
    queryWaitMs: () => embedder.waitMs,
    async embed(texts) {
      calls.push(texts);
      if (embedder.failing) throw new Error('endpoint down');
      return texts.map((text) => Float32Array.from([text.length, 1]));
    },
  };
  return { embedder, calls };
}

const logger = createLogger('agent-memory', 'silent');

describe('query embeddings', () => {
  it('embeds a repeated query once, and a new query again', async () => {
    const { embedder, calls } = recordingEmbedder();
    const queries = new QueryEmbeddings(embedder, 10, logger);
    const first = await queries.vector('money back', 't1');
    await expect(queries.vector('money back', 't1')).resolves.toBe(first);
    await queries.vector('refund', 't1');
    expect(calls).toEqual([['money back'], ['refund']]);
  });

  it('forgets the least recently used query beyond its size', async () => {
    const { embedder, calls } = recordingEmbedder();
    const queries = new QueryEmbeddings(embedder, 2, logger);
    for (const text of ['a', 'b', 'a', 'c', 'a', 'b']) await queries.vector(text, 't1');
    expect(calls.flat()).toEqual(['a', 'b', 'c', 'b']);
  });

  it('answers an empty vector (lexical search) while the model loads or when it fails, and caches no failure', async () => {
    const { embedder, calls } = recordingEmbedder();
    const queries = new QueryEmbeddings(embedder, 10, logger);
    embedder.ready = false;
    await expect(queries.vector('q', 't1')).resolves.toHaveLength(0);
    expect(calls).toEqual([]);
    embedder.ready = true;
    embedder.failing = true;
    await expect(queries.vector('q', 't1')).resolves.toHaveLength(0);
    embedder.failing = false;
    await expect(queries.vector('q', 't1')).resolves.toHaveLength(2);
  });

  it('refuses a new query once the model stays behind, before any model call, but not a known one', async () => {
    jest.useFakeTimers({ now: 0 });
    try {
      const { embedder, calls } = recordingEmbedder();
      const queries = new QueryEmbeddings(embedder, 10, logger, { maxWaitMs: 500, warmUpMs: 0 });
      await queries.vector('known', 't1');
      embedder.waitMs = 500;
      expect(() => queries.admit('new', 't1')).not.toThrow();
      // Behind, but not for BEHIND_GRACE_MS yet: a burst the model catches up with.
      embedder.waitMs = 501;
      expect(() => queries.admit('new', 't1')).not.toThrow();
      jest.setSystemTime(BEHIND_GRACE_MS);
      const refused = refusal(() => queries.admit(' new ', 't1'));
      expect(refused).toMatchObject({ code: 'service_unavailable', retryAfter: 1 });
      expect((refused as Error).message).toMatch(/did not start this request/);
      // Cached (the search trims its query): no model call, so never refused.
      expect(() => queries.admit(' known ', 't1')).not.toThrow();
      // Caught up, then behind again soon after a refusal: refused at once.
      embedder.waitMs = 0;
      expect(() => queries.admit('new', 't1')).not.toThrow();
      embedder.waitMs = 501;
      expect(refusal(() => queries.admit('new', 't1'))).toBeDefined();
      // Long after the last refusal, a new excursion has its grace again.
      embedder.waitMs = 0;
      queries.admit('new', 't1');
      jest.setSystemTime(BEHIND_GRACE_MS + BEHIND_MEMORY_MS + 1);
      embedder.waitMs = 501;
      expect(() => queries.admit('new', 't1')).not.toThrow();
      // A model still loading has no queue: the query ranks lexically at once.
      jest.setSystemTime(3 * BEHIND_GRACE_MS + BEHIND_MEMORY_MS);
      embedder.ready = false;
      expect(() => queries.admit('new', 't1')).not.toThrow();
      expect(calls).toEqual([['known']]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('refuses, while the model is behind, only the tenants holding their share of its queue', () => {
    jest.useFakeTimers({ now: 0 });
    try {
      const { embedder, calls } = recordingEmbedder();
      const waiting = new Map<string, number>();
      embedder.queriesWaiting = (tenantId) => ({
        tenant: waiting.get(tenantId) ?? 0,
        total: [...waiting.values()].reduce((sum, n) => sum + n, 0),
        tenants: waiting.size,
      });
      const queries = new QueryEmbeddings(embedder, 10, logger, { maxWaitMs: 500, warmUpMs: 0 });
      embedder.waitMs = 501;
      waiting.set('flooding', 40);
      queries.admit('first', 'flooding');
      jest.setSystemTime(BEHIND_GRACE_MS);
      // One tenant's queries keep the model behind: that tenant is refused...
      expect(refusal(() => queries.admit('next', 'flooding'))).toMatchObject({ code: 'service_unavailable' });
      // ...and another, with nothing waiting, is not (ModelCalls gives its query the next turn).
      expect(() => queries.admit('next', 'quiet')).not.toThrow();
      // Nor while it has fewer queries waiting than the average of the tenants that have some (30).
      waiting.set('quiet', 20);
      waiting.set('third', 30);
      expect(() => queries.admit('next', 'quiet')).not.toThrow();
      expect(refusal(() => queries.admit('next', 'third'))).toBeDefined();
      // Tenants holding equal shares are refused alike.
      waiting.delete('third');
      waiting.set('quiet', 40);
      expect(refusal(() => queries.admit('next', 'quiet'))).toBeDefined();
      expect(refusal(() => queries.admit('next', 'flooding'))).toBeDefined();
      expect(calls).toEqual([]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('ranks new queries lexically while a warming model is behind, and refuses none', async () => {
    jest.useFakeTimers({ now: 0 });
    try {
      const { embedder, calls } = recordingEmbedder();
      const queries = new QueryEmbeddings(embedder, 10, logger, { maxWaitMs: 500, warmUpMs: 60_000 });
      // Loading: not in use yet.
      embedder.ready = false;
      await expect(queries.vector('while loading', 't1')).resolves.toHaveLength(0);
      jest.setSystemTime(30_000);
      embedder.ready = true;
      await expect(queries.vector('first', 't1')).resolves.toHaveLength(2);
      // Its first minute of use: behind, yet nothing refused; new queries skip the model.
      embedder.waitMs = 10_000;
      jest.setSystemTime(30_000 + 60_000 - 1);
      expect(() => queries.admit('new', 't1')).not.toThrow();
      await expect(queries.vector('new', 't1')).resolves.toHaveLength(0);
      await expect(queries.vector('first', 't1')).resolves.toHaveLength(2);
      expect(calls).toEqual([['first']]);
      // Warm: behind is refused again (after its grace), and an admitted query waits its turn.
      jest.setSystemTime(30_000 + 60_000);
      expect(() => queries.admit('new', 't1')).not.toThrow();
      await expect(queries.vector('new', 't1')).resolves.toHaveLength(2);
      jest.setSystemTime(30_000 + 60_000 + BEHIND_GRACE_MS);
      expect(refusal(() => queries.admit('newer', 't1'))).toMatchObject({ code: 'service_unavailable' });
    } finally {
      jest.useRealTimers();
    }
  });
});

function refusal(call: () => void): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  return undefined;
}
