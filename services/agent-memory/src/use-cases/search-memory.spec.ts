import { createLogger, NotFoundError } from '@agentplatform/service-kit';
import type { EmbeddingProvider } from '../embeddings/embedding-provider.js';
import { MemoryIndex } from '../search/memory-index.js';
import { QueryEmbeddings } from '../search/query-embeddings.js';
import type { UseCaseDeps } from './deps.js';
import { searchMemory } from './search-memory.js';

const logger = createLogger('agent-memory', 'silent');

/** A two-dimensional "model": texts about money point one way, everything else the other. */
function moneyEmbedder() {
  const asked: string[] = [];
  const embedder: EmbeddingProvider = {
    id: 'fake',
    async embed(texts) {
      asked.push(...texts);
      return texts.map((text) => (/money|refund/.test(text) ? Float32Array.from([1, 0]) : Float32Array.from([0, 1])));
    },
  };
  return { embedder, asked };
}

function setup() {
  const { embedder, asked } = moneyEmbedder();
  const index = new MemoryIndex(3, embedder.id);
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
  const item = (id: string, content: string, vector: number[], s: number) => ({
    id,
    agentId: 'agt_1',
    memoryType: 'semantic' as const,
    content,
    metadata: {},
    createdAt: at(s),
    vector: Float32Array.from(vector),
  });
  index.upsert(item('mem_refund', 'Customers get a refund within 30 days', [1, 0], 0));
  for (let i = 1; i <= 8; i++) index.upsert(item(`mem_${i}`, `The office plant number ${i} is green`, [0, 1], i * 10));
  let releaseVersion: (version: number | undefined) => void = () => undefined;
  const versionRead = new Promise<number | undefined>((resolve) => (releaseVersion = resolve));
  const deps = {
    agents: { memoryVersion: jest.fn(() => versionRead) },
    index: { get: jest.fn(async () => index) },
    queryEmbeddings: new QueryEmbeddings(embedder, 10, logger),
    settings: { lexicalWeight: 0.5 },
  } as unknown as UseCaseDeps;
  return { deps, asked, releaseVersion };
}

describe('searchMemory', () => {
  it("embeds the query while the agent's version is being read, not after", async () => {
    const { deps, asked, releaseVersion } = setup();
    const search = searchMemory(deps, { tenantId: 't1', agentId: 'agt_1', query: 'money back', topK: 3 });
    await new Promise((resolve) => setImmediate(resolve));
    // The version read has not answered yet, and the model already has the query.
    expect(asked).toEqual(['money back']);
    releaseVersion(3);
    const results = await search;
    // Found by meaning alone: no word is shared with the query.
    expect(results[0].item.id).toBe('mem_refund');
    expect(deps.index.get).toHaveBeenCalledWith('t1', 'agt_1', 3);
  });

  it("answers not found for an agent that is not the tenant's, whatever the query's embedding", async () => {
    const { deps, releaseVersion } = setup();
    const search = searchMemory(deps, { tenantId: 't2', agentId: 'agt_1', query: 'money back', topK: 3 });
    releaseVersion(undefined);
    await expect(search).rejects.toBeInstanceOf(NotFoundError);
    expect(deps.index.get).not.toHaveBeenCalled();
  });
});
