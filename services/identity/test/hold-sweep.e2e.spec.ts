import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import mongoose from 'mongoose';
import { identityV1 } from '@agentplatform/contracts';
import { createGrpcClient, openChannel, type Channel } from '@agentplatform/service-kit';
import { startPlatform, suiteFixture, waitFor } from '@agentplatform/testing';

const HISTORY = 5_000;

/**
 * The expiry sweep of credit reservations (issue 38): it finds expired reservations from their due
 * entries, never from the ledger, so an identity idle on a long ledger sends the ledger nothing.
 * Reservations live 1 s here and the sweep runs every second.
 */
describe('credit reservation sweep', () => {
  const platform = suiteFixture(() =>
    startPlatform({
      services: ['identity'],
      serviceEnv: { identity: { CREDIT_HOLD_TTL_SECONDS: '1', CREDIT_SWEEP_INTERVAL_SECONDS: '1' } },
    }),
  );
  let channel: Channel;
  let identity: ReturnType<typeof createGrpcClient<typeof identityV1.IdentityServiceDefinition>>;
  let db: mongoose.Connection;

  beforeAll(async () => {
    channel = openChannel(`127.0.0.1:${platform.service('identity').ready!.grpc_port}`);
    identity = createGrpcClient(identityV1.IdentityServiceDefinition, channel, { deadlineMs: 5_000 });
    db = await mongoose.createConnection(platform.mongoUri, { dbName: platform.database('identity') }).asPromise();
    // A long history: closed reservations and charges of another tenant, as weeks of chats leave.
    const at = new Date(Date.now() - 86_400_000);
    const history = Array.from({ length: HISTORY }, (_, i) => ({
      _id: `led_ten_history_${i + 1}`,
      tenant_id: 'ten_history',
      seq: i + 1,
      type: i % 2 === 0 ? 'reserve' : 'settle',
      amount: i % 2 === 0 ? -1 : 1,
      balance_after: i % 2 === 0 ? 0 : 1,
      idempotency_key: i % 2 === 0 ? `chat:${i}` : `chat:${i - 1}:close`,
      description: '',
      created_at: at,
    }));
    for (let i = 0; i < history.length; i += 1_000)
      await db.collection<{ _id: string }>('credit_entries').insertMany(history.slice(i, i + 1_000));
  });

  afterAll(async () => {
    await db?.close();
    channel?.close();
  });

  async function newTenant(): Promise<string> {
    const answer = await identity.register({
      email: `sweep-${randomBytes(6).toString('hex')}@example.com`,
      password: 'password-123',
      fullName: '',
      company: '',
    });
    return answer.tenantId;
  }

  /** `mongo_commands_total` of identity's /metrics, by `collection.command`. */
  async function commands(): Promise<Map<string, number>> {
    const port = platform.service('identity').ready!.metrics_port!;
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const counts = new Map<string, number>();
    for (const m of text.matchAll(/^mongo_commands_total\{([^}]*)\} (\S+)$/gm)) {
      const collection = /collection="([^"]*)"/.exec(m[1]!)?.[1];
      const command = /command="([^"]*)"/.exec(m[1]!)?.[1];
      counts.set(`${collection}.${command}`, Number(m[2]));
    }
    return counts;
  }

  function delta(before: Map<string, number>, after: Map<string, number>, collection: string): number {
    let sum = 0;
    for (const [key, value] of after) if (key.startsWith(`${collection}.`)) sum += value - (before.get(key) ?? 0);
    return sum;
  }

  it('releases an abandoned reservation once, and a late settle charges its use once', async () => {
    const tenantId = await newTenant();
    await identity.reserve({ tenantId, operationId: 'chat:lost', amount: 40, description: 'chat' });
    expect((await identity.getBalance({ tenantId })).balance).toBe(960);
    await waitFor(async () => (await identity.getBalance({ tenantId })).balance === 1000, {
      timeoutMs: 15_000,
      what: 'the sweep to release the reservation',
    });
    // The holder comes back after the release: its use is charged, once however often it asks.
    const settle = { tenantId, operationId: 'chat:lost', used: 15, description: '' };
    const late = await identity.settle(settle);
    expect(late).toMatchObject({ balance: 985, charged: 15, released: false });
    expect(await identity.settle(settle)).toEqual(late);
    await sleep(2_500);
    const entries = await db
      .collection('credit_entries')
      .find({ tenant_id: tenantId }, { sort: { seq: 1 } })
      .toArray();
    expect(entries.map((e) => [e.type, e.amount])).toEqual([
      ['grant', 1000],
      ['reserve', -40],
      ['release', 40],
      ['charge', -15],
    ]);
    expect(await db.collection('credit_holds_due').countDocuments({ tenant_id: tenantId })).toBe(0);
  });

  it('sends the ledger nothing while idle on a long history: each sweep reads only the due entries', async () => {
    const tenantId = await newTenant();
    // An open reservation is not due yet, then closed by its settle: the sweep has nothing to do.
    await identity.reserve({ tenantId, operationId: 'chat:quick', amount: 5, description: 'chat' });
    await identity.settle({ tenantId, operationId: 'chat:quick', used: 2, description: '' });
    await sleep(500);
    const before = await commands();
    await sleep(4_500);
    const after = await commands();
    // About four sweeps ran, each one bounded page of the due collection, which is empty.
    expect(delta(before, after, 'credit_holds_due')).toBeGreaterThanOrEqual(3);
    expect(await db.collection('credit_holds_due').countDocuments()).toBe(0);
    // Not one call on the ledger or the accounts, whatever their size.
    expect(delta(before, after, 'credit_entries')).toBe(0);
    expect(delta(before, after, 'credit_accounts')).toBe(0);
    expect(await db.collection('credit_entries').countDocuments()).toBeGreaterThan(HISTORY);
  });
});
