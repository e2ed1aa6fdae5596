import { startPlatform, type Platform } from '@agentplatform/testing';
import { newTenant, type Http } from './support';

const STORED = 2_000;
const BATCH = 100;

/** The service's /metrics, and one counter of it by its labels. */
async function metrics(platform: Platform): Promise<(name: string, labels: string) => number> {
  const port = platform.service('agent-memory').ready!.metrics_port!;
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return (name, labels) => Number(new RegExp(`^${name}\\{[^}]*${labels}[^}]*\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
}

/** `mongo_commands_total` of a collection, by command. */
const commands = (counter: (name: string, labels: string) => number, collection: string, command: string) =>
  counter('mongo_commands_total', `collection="${collection}",command="${command}"`);

/**
 * An idle agent-memory on stored memories (issue 38): the embedding backlog still looks for work
 * every poll, but on the stand-in a look-up over the memories is a scan of all of them, once a
 * poll, forever. The look-ups read the backlog's due entries instead (empty once everything has
 * its vector), and the memories see no query at all while nothing happens.
 */
describe('agent-memory idle on stored memories', () => {
  let platform: Platform;
  let http: Http;

  beforeAll(async () => {
    platform = await startPlatform({
      services: ['identity', 'agent-memory'],
      // The hashing embedding (fast) and a poll five times as frequent as the default.
      serviceEnv: { 'agent-memory': { EMBEDDINGS_MODEL_DIR: 'none', EMBEDDINGS_IDLE_POLL_MS: '200' } },
    });
    http = (await newTenant(platform)).http;
  }, 180_000);

  afterAll(async () => {
    await platform?.stop();
  });

  it('polls for work without querying the memories once they are all embedded', async () => {
    const agent = await http.post('/api/v1/agents', { name: 'Idle', type: 'support' });
    expect(agent.status).toBe(201);
    for (let n = 0; n < STORED; n += BATCH) {
      const items = Array.from({ length: BATCH }, (_, i) => ({ content: `stored fact number ${n + i}` }));
      const res = await http.post('/api/v1/memory/batch', { agent_id: agent.body.id, items });
      expect(res.status).toBe(201);
    }
    const deadline = Date.now() + 120_000;
    for (;;) {
      const counter = await metrics(platform);
      if (counter('agent_memory_embedded_total', 'provider="local-hash-v1"') >= STORED) break;
      if (Date.now() > deadline) throw new Error('the backlog did not embed the stored memories');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }

    const before = await metrics(platform);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const after = await metrics(platform);
    const delta = (collection: string, command: string) =>
      commands(after, collection, command) - commands(before, collection, command);

    // The backlog looked for work about fifteen times in those three seconds...
    expect(delta('memory_embedding_due', 'find')).toBeGreaterThanOrEqual(5);
    // ...and none of its look-ups (nor anything else) read or counted the memories.
    for (const command of ['find', 'findOne', 'countDocuments', 'aggregate', 'distinct', 'bulkWrite'])
      expect([command, delta('memories', command)]).toEqual([command, 0]);
  }, 300_000);
});
