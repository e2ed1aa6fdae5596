import { createLogger } from '@agentplatform/service-kit';
import type { EmbeddingProvider } from '../embeddings/embedding-provider.js';
import { QueryEmbeddings } from './query-embeddings.js';

/** An embedder that answers when told to, counting the texts it was asked for. */
function slowEmbedder() {
  const asked: string[] = [];
  const waiting: Array<() => void> = [];
  const embedder: EmbeddingProvider = {
    id: 'test',
    async embed(texts) {
      asked.push(...texts);
      await new Promise<void>((resolve) => waiting.push(resolve));
      return texts.map((t) => Float32Array.from([t.length, 1]));
    },
  };
  return { embedder, asked, answer: () => waiting.splice(0).forEach((resolve) => resolve()) };
}

// Concurrent searches of one text only; the cache and the lexical fallback are specified apart.
describe('QueryEmbeddings, concurrent searches', () => {
  const logger = createLogger('test', 'silent');

  it('embeds a text once for concurrent searches of it, then serves it from the cache', async () => {
    const { embedder, asked, answer } = slowEmbedder();
    const queries = new QueryEmbeddings(embedder, 10, logger);
    const pending = [
      queries.vector('refund policy', 't1'),
      queries.vector('refund policy', 't1'),
      queries.vector('other', 't1'),
    ];
    await new Promise((resolve) => setImmediate(resolve));
    answer();
    const [a, b, c] = await Promise.all(pending);
    expect(asked).toEqual(['refund policy', 'other']);
    expect(a).toBe(b);
    expect(Array.from(c)).toEqual([5, 1]);
    expect(await queries.vector('refund policy', 't1')).toBe(a);
    expect(asked).toHaveLength(2);
  });
});
