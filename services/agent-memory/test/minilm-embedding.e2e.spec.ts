import path from 'node:path';
import { createLogger } from '@agentplatform/service-kit';
import type { EmbeddingProvider } from '../src/embeddings/embedding-provider';

/** deploy/local/model.js: the same fetch as `.ci/run` and `npm start` (cached after the first). */
const model = require(path.resolve(__dirname, '../../../deploy/local/model.js')) as {
  fetchModel(options: { quiet: boolean }): Promise<string>;
};

/**
 * The real model in its worker thread (the build's, as the service runs it). It quantizes its
 * activations per run, so a text must run alone: its vector then depends on the text only,
 * never on what else (another tenant's texts) shares its call.
 */
describe('the offline embedding model', () => {
  let provider: EmbeddingProvider & { close(): Promise<void>; ready: boolean };

  beforeAll(async () => {
    const dir = await model.fetchModel({ quiet: true });
    const { MiniLmEmbeddingProvider } = require('../dist/embeddings/minilm-embedding.provider.js');
    // Calls of three texts, so that the worker, not the queue in front of it, decides how they run.
    provider = new MiniLmEmbeddingProvider(dir, createLogger('minilm-test', 'warn'), { backgroundCall: 3 });
    const started = Date.now();
    while (!provider.ready && Date.now() - started < 60_000) await new Promise((r) => setTimeout(r, 50));
    expect(provider.ready).toBe(true);
  }, 120_000);

  afterAll(() => provider?.close());

  it("gives a text the same vector alone as beside others' texts, as a query or in the background", async () => {
    const texts = [
      'Our refund policy allows returns within 30 days of purchase.',
      'hi',
      `${'Customer data is backed up nightly to a second region. '.repeat(12)}`,
    ];
    const alone = await Promise.all(texts.map((text) => provider.embed([text], { tenantId: 'ten_a' })));
    const together = await provider.embed(texts, { background: true });
    texts.forEach((_, i) => expect(Array.from(together[i])).toEqual(Array.from(alone[i][0])));
    // A different text does change the vector (the comparison above is not vacuous).
    expect(Array.from(alone[0][0])).not.toEqual(Array.from(alone[1][0]));
  });
});
