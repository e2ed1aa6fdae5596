import { startTenantPlatform, suiteFixture } from '@agentplatform/testing';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The chat charge retry job finds its work in the small `chat_charges_due` collection, never by a
 * scan of the messages (issue 38): an idle service polling every 100 ms sends no command to
 * `messages` or `sessions` at all, while its polls of the due entries show on /metrics
 * (`mongo_commands_total{collection,command}`). A settled turn leaves no due entry behind.
 */
describe('chat charges: the retry job reads due entries only', () => {
  const suite = suiteFixture(() =>
    startTenantPlatform(
      { services: ['identity', 'agent-memory'], env: { CHARGE_RETRY_INTERVAL_MS: '100' } },
      'chat-charges-due',
    ),
  );

  async function commands(): Promise<(collection: string, command?: string) => number> {
    const port = suite.platform.service('agent-memory').ready!.metrics_port!;
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const rows = [...text.matchAll(/^mongo_commands_total\{([^}]*)\} (\d+)/gm)].map(([, labels, value]) => ({
      collection: /collection="([^"]*)"/.exec(labels!)?.[1],
      command: /command="([^"]*)"/.exec(labels!)?.[1],
      value: Number(value),
    }));
    return (collection, command) =>
      rows
        .filter((r) => r.collection === collection && (command === undefined || r.command === command))
        .reduce((sum, r) => sum + r.value, 0);
  }

  it('polls the due entries, not the messages, and settles a turn without leaving an entry', async () => {
    const agent = await suite.http.post('/api/v1/agents', { name: 'Idle', type: 'assistant' });
    expect(agent.status).toBe(201);
    const before = (await suite.http.get('/api/v1/billing/credits')).body.balance as number;
    const chat = await suite.http.post(`/api/v1/agents/${agent.body.id}/chat`, { message: 'Hello?' });
    expect(chat.status).toBe(200);
    expect((await suite.http.get('/api/v1/billing/credits')).body.balance).toBe(before - chat.body.credits_used);

    // Idle from here: only the retry job's polls reach the database.
    await sleep(300);
    const start = await commands();
    await sleep(1_500);
    const end = await commands();
    const delta = (collection: string, command?: string) => end(collection, command) - start(collection, command);

    expect(delta('chat_charges_due', 'find')).toBeGreaterThanOrEqual(5);
    expect(delta('messages')).toBe(0);
    expect(delta('sessions')).toBe(0);
    // The settled turn's entry was deleted: the polls find nothing to settle.
    expect(delta('chat_charges_due', 'deleteMany')).toBe(0);
    expect(end('chat_charges_due', 'deleteMany')).toBeGreaterThanOrEqual(1);
  });
});
