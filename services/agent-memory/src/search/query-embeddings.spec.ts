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
    const first = await queries.vector('money back');
    await expect(queries.vector('money back')).resolves.toBe(first);
    await queries.vector('refund');
    expect(calls).toEqual([['money back'], ['refund']]);
  });

  it('forgets the least recently used query beyond its size', async () => {
    const { embedder, calls } = recordingEmbedder();
    const queries = new QueryEmbeddings(embedder, 2, logger);
    for (const text of ['a', 'b', 'a', 'c', 'a', 'b']) await queries.vector(text);
    expect(calls.flat()).toEqual(['a', 'b', 'c', 'b']);
  });

  it('answers an empty vector (lexical search) while the model loads or when it fails, and caches no failure', async () => {
    const { embedder, calls } = recordingEmbedder();
    const queries = new QueryEmbeddings(embedder, 10, logger);
    embedder.ready = false;
    await expect(queries.vector('q')).resolves.toHaveLength(0);
    expect(calls).toEqual([]);
    embedder.ready = true;
    embedder.failing = true;
    await expect(queries.vector('q')).resolves.toHaveLength(0);
    embedder.failing = false;
    await expect(queries.vector('q')).resolves.toHaveLength(2);
  });

  it('refuses a new query once the model stays behind, before any model call, but not a known one', async () => {
    jest.useFakeTimers({ now: 0 });
    try {
      const { embedder, calls } = recordingEmbedder();
      const queries = new QueryEmbeddings(embedder, 10, logger, { maxWaitMs: 500, warmUpMs: 0 });
      await queries.vector('known');
      embedder.waitMs = 500;
      expect(() => queries.admit('new')).not.toThrow();
      // Behind, but not for BEHIND_GRACE_MS yet: a burst the model catches up with.
      embedder.waitMs = 501;
      expect(() => queries.admit('new')).not.toThrow();
      jest.setSystemTime(BEHIND_GRACE_MS);
      const refused = refusal(() => queries.admit(' new '));
      expect(refused).toMatchObject({ code: 'service_unavailable', retryAfter: 1 });
      expect((refused as Error).message).toMatch(/did not start this request/);
      // Cached (the search trims its query): no model call, so never refused.
      expect(() => queries.admit(' known ')).not.toThrow();
      // Caught up, then behind again soon after a refusal: refused at once.
      embedder.waitMs = 0;
      expect(() => queries.admit('new')).not.toThrow();
      embedder.waitMs = 501;
      expect(refusal(() => queries.admit('new'))).toBeDefined();
      // Long after the last refusal, a new excursion has its grace again.
      embedder.waitMs = 0;
      queries.admit('new');
      jest.setSystemTime(BEHIND_GRACE_MS + BEHIND_MEMORY_MS + 1);
      embedder.waitMs = 501;
      expect(() => queries.admit('new')).not.toThrow();
      // A model still loading has no queue: the query ranks lexically at once.
      jest.setSystemTime(3 * BEHIND_GRACE_MS + BEHIND_MEMORY_MS);
      embedder.ready = false;
      expect(() => queries.admit('new')).not.toThrow();
      expect(calls).toEqual([['known']]);
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
      await expect(queries.vector('while loading')).resolves.toHaveLength(0);
      jest.setSystemTime(30_000);
      embedder.ready = true;
      await expect(queries.vector('first')).resolves.toHaveLength(2);
      // Its first minute of use: behind, yet nothing refused; new queries skip the model.
      embedder.waitMs = 10_000;
      jest.setSystemTime(30_000 + 60_000 - 1);
      expect(() => queries.admit('new')).not.toThrow();
      await expect(queries.vector('new')).resolves.toHaveLength(0);
      await expect(queries.vector('first')).resolves.toHaveLength(2);
      expect(calls).toEqual([['first']]);
      // Warm: behind is refused again (after its grace), and an admitted query waits its turn.
      jest.setSystemTime(30_000 + 60_000);
      expect(() => queries.admit('new')).not.toThrow();
      await expect(queries.vector('new')).resolves.toHaveLength(2);
      jest.setSystemTime(30_000 + 60_000 + BEHIND_GRACE_MS);
      expect(refusal(() => queries.admit('newer'))).toMatchObject({ code: 'service_unavailable' });
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
