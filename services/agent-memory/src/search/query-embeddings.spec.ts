import { createLogger } from '@agentplatform/service-kit';
import type { EmbeddingProvider } from '../embeddings/embedding-provider.js';
import { QueryEmbeddings } from './query-embeddings.js';

/** An embedder that records what it was asked, and can be told to fail or to be still loading. */
function recordingEmbedder() {
  const calls: string[][] = [];
  const embedder: EmbeddingProvider & { failing: boolean; ready: boolean } = {
    id: 'recording',
    failing: false,
    ready: true,
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
});
