import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startPlatform, type Platform } from '@agentplatform/testing';
import { newTenant, type Http } from './support';

/** deploy/local/model.js: the same fetch as `.ci/run` and `npm start` (cached after the first). */
const model = require(path.resolve(__dirname, '../../../deploy/local/model.js')) as {
  MODEL_DIR: string;
  fetchModel(options: { quiet: boolean }): Promise<string>;
};

const MODEL_ID = 'minilm-l6-v2-int8-dynamic';
const HASH_ID = 'local-hash-v1';

interface Item {
  id: string;
  content: string;
  embedding: { provider: string; dimension: number };
}

async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** A few unrelated memories, so that a search has something to rank the right one above. */
const DISTRACTORS = [
  'The office dog is called Biscuit.',
  'Shipping to Canada takes about a week.',
  'The quarterly planning meeting moved to Thursday.',
  'Our logo uses a dark shade of teal.',
];
const REFUND = 'The customer was promised a refund for the broken blender.';

describe('memory embeddings: the offline model, the backlog, switching and fallback', () => {
  let platform: Platform | undefined;
  let http: Http;

  beforeAll(async () => {
    await model.fetchModel({ quiet: true });
  }, 300_000);

  afterEach(async () => {
    await platform?.stop();
    platform = undefined;
  });

  async function start(env: NodeJS.ProcessEnv = {}): Promise<void> {
    platform = await startPlatform({
      services: ['identity', 'agent-memory'],
      serviceEnv: { 'agent-memory': { LOG_LEVEL: 'info', ...env } },
    });
    http = (await newTenant(platform)).http;
  }

  async function newAgent(): Promise<string> {
    const res = await http.post('/api/v1/agents', { name: 'Embeddings', type: 'support' });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  async function add(agentId: string, content: string): Promise<Item> {
    const res = await http.post('/api/v1/memory', { agent_id: agentId, content });
    expect(res.status).toBe(201);
    return res.body;
  }

  async function search(agentId: string, query: string): Promise<Array<{ id: string; score: number }>> {
    const res = await http.post('/api/v1/memory/search', { agent_id: agentId, query, top_k: 3 });
    expect(res.status).toBe(200);
    return res.body.results;
  }

  /** Waits until every item of the agent has a vector of `provider`. */
  async function embedded(agentId: string, provider: string): Promise<Item[]> {
    return waitFor(`every memory embedded by ${provider}`, async () => {
      const res = await http.get(`/api/v1/memory?agent_id=${agentId}&per_page=100`);
      const items = res.body.items as Item[];
      return items.every((i) => i.embedding.provider === provider) ? items : undefined;
    });
  }

  const log = () => readFileSync(platform!.service('agent-memory').logFile, 'utf8');

  it('finds "refund" by "money back" with the model, and answers an add before its vector exists', async () => {
    await start();
    const agentId = await newAgent();
    for (const text of DISTRACTORS) await add(agentId, text);
    const refund = await add(agentId, REFUND);
    // The add answered without waiting for the model: no vector yet in its answer.
    expect(refund.embedding).toEqual({ provider: '', dimension: 0 });
    // Lexically searchable at once.
    expect((await search(agentId, 'blender refund'))[0].id).toBe(refund.id);

    // Semantically searchable once the backlog has drained: "money back" shares no word with it.
    const items = await embedded(agentId, MODEL_ID);
    expect(items.find((i) => i.id === refund.id)!.embedding).toEqual({ provider: MODEL_ID, dimension: 384 });
    const results = await search(agentId, 'money back');
    expect(results[0].id).toBe(refund.id);
    expect(results[0].score).toBeGreaterThan(0);
    expect(results[0].score).toBeLessThanOrEqual(1);
    expect(log()).toContain('embedding model loaded');
  }, 300_000);

  it('re-embeds existing memories in the background after the embedder changed, search working throughout', async () => {
    await start({ EMBEDDINGS_MODEL_DIR: 'none', EMBEDDINGS_BATCH_SIZE: '4' });
    const agentId = await newAgent();
    const contents = [...DISTRACTORS, REFUND];
    for (let i = 0; i < 30; i++) contents.push(`Filler note number ${i} about the weekly office routine.`);
    for (const text of contents) await add(agentId, text);
    await embedded(agentId, HASH_ID);

    const service = platform!.service('agent-memory');
    await service.stop();
    service.setEnv({ EMBEDDINGS_MODEL_DIR: model.MODEL_DIR });
    await service.start(120_000);

    // While the backlog re-embeds, every search answers (items not yet re-embedded rank lexically).
    let searches = 0;
    const items = await waitFor(
      'the re-embedding',
      async () => {
        searches++;
        expect((await search(agentId, 'blender refund')).length).toBeGreaterThan(0);
        const res = await http.get(`/api/v1/memory?agent_id=${agentId}&per_page=100`);
        const all = res.body.items as Item[];
        return all.every((i) => i.embedding.provider === MODEL_ID) ? all : undefined;
      },
      240_000,
    );
    expect(searches).toBeGreaterThan(0);
    expect(items).toHaveLength(contents.length);
    const refundId = items.find((i) => i.content === REFUND)!.id;
    expect((await search(agentId, 'money back'))[0].id).toBe(refundId);
    expect(log()).toMatch(/embedding backlog/);
  }, 600_000);

  it('falls back to the hashing embedding, with a warning, when the model is missing', async () => {
    await start({ EMBEDDINGS_MODEL_DIR: '/nonexistent/agentplatform-model' });
    const agentId = await newAgent();
    const item = await add(agentId, REFUND);
    await embedded(agentId, HASH_ID);
    expect((await search(agentId, 'refund blender'))[0].id).toBe(item.id);
    expect(log()).toContain('embedding model not found');
  }, 300_000);
});
