import { startPlatform, type Platform } from '@agentplatform/testing';
import { newTenant, type Http } from './support';

const BOUND_MB = 16;
const BATCH = 50;

/** The service's /metrics, and one sample of it by name and (part of) its labels. */
async function metrics(platform: Platform): Promise<(name: string, labels?: string) => number> {
  const port = platform.service('agent-memory').ready!.metrics_port!;
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return (name, labels) => {
    const pattern = labels ? `^${name}\\{[^}]*${labels}[^}]*\\} (\\S+)` : `^${name}(?:\\{[^}]*\\})? (\\S+)`;
    return Number(new RegExp(pattern, 'm').exec(text)?.[1] ?? NaN);
  };
}

/** An item of 200 distinct terms, each its own (about 120 KB of index, estimated). */
const varied = (agent: string, n: number) =>
  Array.from({ length: 200 }, (_, i) => `${agent}term${n * 200 + i}`).join(' ') + ` fact ${agent} ${n}`;

/**
 * The per-replica cache of agents' search indexes is bounded by their estimated heap, and the
 * bound holds while this replica's own writes grow a cached index (issue 38: they grew it past
 * its bound, so the replica's memory grew with time under a steady load).
 */
describe('agent-memory search index cache', () => {
  let platform: Platform;
  let http: Http;

  beforeAll(async () => {
    platform = await startPlatform({
      services: ['identity', 'agent-memory'],
      serviceEnv: { 'agent-memory': { EMBEDDINGS_MODEL_DIR: 'none', MEMORY_INDEX_CACHE_MAX_MB: String(BOUND_MB) } },
    });
    http = (await newTenant(platform)).http;
  }, 180_000);

  afterAll(async () => {
    await platform?.stop();
  });

  async function add(agent: string, name: string, from: number, count: number): Promise<void> {
    for (let n = from; n < from + count; n += BATCH) {
      const items = Array.from({ length: Math.min(BATCH, from + count - n) }, (_, i) => ({
        content: varied(name, n + i),
      }));
      const res = await http.post('/api/v1/memory/batch', { agent_id: agent, items });
      expect(res.status).toBe(201);
    }
  }

  async function search(agent: string, query: string): Promise<string[]> {
    const res = await http.post('/api/v1/memory/search', { agent_id: agent, query, top_k: 3 });
    expect(res.status).toBe(200);
    return res.body.results.map((r: { content: string }) => r.content);
  }

  it('drops the least recently searched index when writes to another outgrow the bound', async () => {
    const a = (await http.post('/api/v1/agents', { name: 'A', type: 'support' })).body.id;
    const b = (await http.post('/api/v1/agents', { name: 'B', type: 'support' })).body.id;
    await add(a, 'a', 0, 100);
    await add(b, 'b', 0, 10);
    expect((await search(a, 'aterm2000'))[0]).toMatch(/fact a 10$/);
    expect((await search(b, 'bterm400'))[0]).toMatch(/fact b 2$/);
    const both = (await metrics(platform))('agent_memory_index_cache_bytes');
    expect(both).toBeGreaterThan(BOUND_MB * 2 ** 20 * 0.4);
    expect(both).toBeLessThan(BOUND_MB * 2 ** 20);

    // B's index is cached: this replica applies its adds to it, and B outgrows what is left.
    await add(b, 'b', 10, 100);
    const after = await metrics(platform);
    expect(after('agent_memory_index_cache_bytes')).toBeLessThanOrEqual(BOUND_MB * 2 ** 20);
    const finds = after('mongo_commands_total', 'collection="memories",command="find"');

    // A's index was dropped: its next search loads its items again, and finds what it held.
    expect((await search(a, 'aterm19800'))[0]).toMatch(/fact a 99$/);
    const reloaded = await metrics(platform);
    expect(reloaded('mongo_commands_total', 'collection="memories",command="find"')).toBeGreaterThan(finds);
    expect(reloaded('agent_memory_index_cache_bytes')).toBeLessThanOrEqual(BOUND_MB * 2 ** 20);
    // B's writes were all applied to its index here: a search finds the last of them.
    expect((await search(b, 'bterm21800'))[0]).toMatch(/fact b 109$/);
  }, 300_000);
});
