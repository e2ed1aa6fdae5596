import path from 'node:path';
import { startPlatform, waitFor, type Platform } from '@agentplatform/testing';
import { newTenant, type Http } from './support';

/** deploy/local/model.js: the same fetch as `.ci/run` and `npm start` (cached after the first). */
const model = require(path.resolve(__dirname, '../../../deploy/local/model.js')) as {
  fetchModel(options: { quiet: boolean }): Promise<string>;
};

/** The noisy tenant's memories: 4 batches of 100, each about 1.9 KB (the model keeps 256 word pieces). */
const NOISY_BATCHES = 4;
const NOISY_PER_BATCH = 100;
const NOISY_ITEMS = NOISY_BATCHES * NOISY_PER_BATCH;

const SENTENCES = [
  'We went over the quarterly numbers for the northern warehouse and the late deliveries.',
  'The customer asked whether the premium plan includes priority support on weekends.',
  'Maria prefers meetings in the morning and does not want calls after five.',
  'The staging cluster ran out of disk space twice during the migration last week.',
  'Our supplier in Porto raised the price of recycled cardboard by eight percent.',
  'The onboarding checklist still mentions the old expense tool, which nobody uses.',
  'He described the hiking trip through the valley and the storm on the second night.',
  'The legal team wants every contract renewal reviewed thirty days before it expires.',
];

/** A long chat-like memory, different for every `n` (chat-local's episodic memories are this long). */
function longMemory(n: number): string {
  const parts = [`Session ${n}.`];
  for (let k = 0; parts.join(' ').length < 1_900; k++)
    parts.push(`Turn ${k}: ${SENTENCES[(n + k) % SENTENCES.length]}`);
  return parts.join(' ');
}

/** A few short memories of the quiet tenant, and the one its search must find by other words. */
const DISTRACTORS = ['The office dog is called Biscuit.', 'Our logo uses a dark shade of teal.'];
const REFUND = 'The customer was promised a refund for the broken blender.';

interface Item {
  id: string;
  embedding: { provider: string };
}

/**
 * Tenants share the embedding model (issue 19): one tenant's long backlog must not delay another
 * tenant's new memory until that backlog has drained. Real services and the offline model.
 */
describe('embedding backlog fairness between tenants', () => {
  let platform: Platform;

  beforeAll(async () => {
    await model.fetchModel({ quiet: true });
    platform = await startPlatform({ services: ['identity', 'agent-memory'] });
  }, 300_000);

  afterAll(async () => {
    await platform?.stop();
  });

  async function newAgent(http: Http): Promise<string> {
    const res = await http.post('/api/v1/agents', { name: 'Fairness', type: 'support' });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  /** How many of the agent's memories have no vector yet. */
  async function waiting(http: Http, agentId: string): Promise<number> {
    let count = 0;
    for (let page = 1; page <= NOISY_BATCHES; page++) {
      const res = await http.get(`/api/v1/memory?agent_id=${agentId}&per_page=100&page=${page}`);
      expect(res.status).toBe(200);
      count += (res.body.items as Item[]).filter((i) => i.embedding.provider === '').length;
    }
    return count;
  }

  it("makes a quiet tenant's new memory semantically searchable while a noisy tenant's backlog waits", async () => {
    const noisy = (await newTenant(platform)).http;
    const quiet = (await newTenant(platform)).http;
    const noisyAgent = await newAgent(noisy);
    const quietAgent = await newAgent(quiet);

    for (let b = 0; b < NOISY_BATCHES; b++) {
      const items = Array.from({ length: NOISY_PER_BATCH }, (_, n) => ({
        memory_type: 'episodic',
        content: longMemory(b * NOISY_PER_BATCH + n),
      }));
      const res = await noisy.post('/api/v1/memory/batch', { agent_id: noisyAgent, items });
      expect(res.status).toBe(201);
    }
    // The noisy tenant's backlog is draining (the model has loaded): its items are the candidates
    // the backlog holds.
    await waitFor(async () => (await waiting(noisy, noisyAgent)) <= NOISY_ITEMS - 8, {
      timeoutMs: 180_000,
      intervalMs: 500,
      what: "the noisy tenant's first vectors",
    });

    for (const content of DISTRACTORS)
      expect((await quiet.post('/api/v1/memory', { agent_id: quietAgent, content })).status).toBe(201);
    const refund = await quiet.post('/api/v1/memory', { agent_id: quietAgent, content: REFUND });
    expect(refund.status).toBe(201);
    const added = Date.now();

    // "money back" shares no word with the refund memory: only its vector finds it.
    await waitFor(
      async () => {
        const res = await quiet.post('/api/v1/memory/search', { agent_id: quietAgent, query: 'money back', top_k: 3 });
        expect(res.status).toBe(200);
        return res.body.results[0]?.id === refund.body.id;
      },
      { timeoutMs: 120_000, intervalMs: 250, what: "the quiet tenant's memory found by its meaning" },
    );
    const waited = Date.now() - added;
    const noisyWaiting = await waiting(noisy, noisyAgent);

    // Found while most of the noisy tenant's backlog still waits (first come, first served, it
    // waited for all of it: 400 long texts are a minute or more of the model), and within
    // seconds: a look-up for other tenants (1 s), then a batch or two of four long texts.
    console.log(
      `quiet tenant's memory found by meaning after ${waited} ms; noisy items still waiting: ${noisyWaiting}`,
    );
    expect(noisyWaiting).toBeGreaterThan(NOISY_ITEMS / 2);
    expect(waited).toBeLessThan(20_000);
  }, 420_000);
});
