import { randomBytes } from 'node:crypto';
import mongoose from 'mongoose';
import type { Outbox } from '@agentplatform/events';
import { declaredIndexes, recordQueryShapes, servingIndex } from '@agentplatform/service-kit';
import { startTenantPlatform, suiteFixture } from '@agentplatform/testing';
import { ChatRepository } from '../src/persistence/chat.repository';
import { chargeDueModel } from '../src/persistence/chat.schema';

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

  it('asks the stand-in for due entries and deletes them by id, however many messages there are', async () => {
    const dbName = `chat_due_${randomBytes(4).toString('hex')}`;
    const connection = await mongoose.createConnection(process.env.MONGODB_URI!, { dbName }).asPromise();
    try {
      // The retry job never stores a turn: its repository needs no outbox run.
      const outbox = { group: () => ({ run: async () => undefined }) } as unknown as Outbox;
      const chats = new ChatRepository(connection, outbox);
      await chats.init();
      const at = new Date();
      await connection.collection('messages').insertMany(
        Array.from({ length: 2_000 }, (_, i) => ({
          _id: `msg_old_${i}` as never,
          tenant_id: 'ten_a',
          agent_id: 'agt_a',
          session_id: 'ses_a',
          role: 'user',
          content: 'history',
          created_at: at,
        })),
      );
      await chargeDueModel(connection).create(
        ['msg_1', 'msg_2'].map((id) => ({ _id: id, tenant_id: 'ten_a', credits: 1, total_tokens: 10, created_at: at })),
      );

      const seen = recordQueryShapes(connection);
      const due = await chats.pendingCharges(100);
      await Promise.all(due.map((charge) => chats.markCharged(charge.tenantId, charge.id)));
      connection.set('debug', false);

      expect(due.map((c) => c.id)).toEqual(['msg_1', 'msg_2']);
      expect(await chargeDueModel(connection).countDocuments()).toBe(0);
      // Every call of the pass with the index that answers it: the page reads the due entries
      // (only unsettled charges, so a scan of them is a scan of the work), the marks delete by id.
      const verdicts = seen.map(({ shape, filter }) => {
        const verdict = servingIndex(shape, filter, declaredIndexes(connection, shape.collection));
        const fields = [...shape.equality, ...shape.range].join(',');
        return `${shape.collection}.${shape.command}(${fields}) -> ${verdict.mongo ?? 'the due entries'}`;
      });
      expect([...new Set(verdicts)].sort()).toEqual([
        'chat_charges_due.deleteMany(_id,tenant_id) -> _id',
        'chat_charges_due.find() -> the due entries',
      ]);
    } finally {
      await connection.dropDatabase();
      await connection.close();
    }
  });
});
