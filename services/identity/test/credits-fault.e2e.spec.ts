import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes, randomInt } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import mongoose from 'mongoose';
import { identityV1 } from '@agentplatform/contracts';
import { DomainError, createGrpcClient, fromCallError, openChannel, type Channel } from '@agentplatform/service-kit';
import { startPlatform, suiteFixture } from '@agentplatform/testing';

/**
 * Crashes identity (SIGKILL) at random moments while chats reserve and settle (or release), half
 * of them through ReserveMany/SettleMany, and the owner buys credits, every call retried with its
 * operation id until it is answered, the way agent-memory, workflow and a client retrying a
 * purchase do. Afterwards the ledger must be a clean chain whose sum is the balance, with each
 * operation once and each reservation closed once.
 *
 * CREDITS_FAULT_ROUNDS repeats it (each round a new tenant) and CREDITS_FAULT_REPORT names a file
 * that gets one line per finished round; scripts/credits-fault-loop.js sets both.
 */
const ROUNDS = Number(process.env.CREDITS_FAULT_ROUNDS ?? 1);
const REPORT = process.env.CREDITS_FAULT_REPORT;
const OPERATIONS = 200;
const PARALLEL = 8;
const WELCOME = 1000;

interface Ledger {
  _id: string;
  seq?: number;
  type: string;
  amount: number;
  balance_after: number;
  idempotency_key: string;
}

type Client = ReturnType<typeof createGrpcClient<typeof identityV1.IdentityServiceDefinition>>;

describe('identity credits under crashes', () => {
  const platform = suiteFixture(() => startPlatform({ services: ['identity'] }));
  let channel: Channel;
  let identity: Client;
  let db: mongoose.Connection;

  /** A new channel: one that saw the service down may wait out its reconnect backoff first. */
  function connect(): void {
    const previous = channel;
    channel = openChannel(`127.0.0.1:${platform.service('identity').ready!.grpc_port}`);
    identity = createGrpcClient(identityV1.IdentityServiceDefinition, channel, { deadlineMs: 3_000 });
    previous?.close();
  }

  beforeAll(async () => {
    connect();
    db = await mongoose.createConnection(platform.mongoUri, { dbName: platform.database('identity') }).asPromise();
  });

  afterAll(async () => {
    await db?.close();
    channel?.close();
  });

  /** Calls until answered; a domain error other than unavailable is an answer (and fails the test). */
  async function untilAnswered<T>(call: () => Promise<T>): Promise<T> {
    for (;;) {
      try {
        return await call();
      } catch (error) {
        if (error instanceof DomainError && !['service_unavailable', 'internal_error'].includes(error.code)) {
          throw error;
        }
        await sleep(50 + randomInt(150));
      }
    }
  }

  /** One item through ReserveMany (the workflow service's path): its answer, or its error thrown. */
  async function reserveInBatch(item: identityV1.ReserveRequest): Promise<identityV1.ReserveResponse> {
    const [answer] = (await identity.reserveMany({ items: [item] })).outcomes;
    if (answer?.outcome?.$case === 'reserved') return answer.outcome.value;
    throw answer?.outcome?.$case === 'error' ? fromCallError(answer.outcome.value) : new Error('no outcome');
  }

  async function settleInBatch(item: identityV1.SettleRequest): Promise<identityV1.SettleResponse> {
    const [answer] = (await identity.settleMany({ items: [item] })).outcomes;
    if (answer?.outcome?.$case === 'settled') return answer.outcome.value;
    throw answer?.outcome?.$case === 'error' ? fromCallError(answer.outcome.value) : new Error('no outcome');
  }

  /**
   * Kills identity at a random point of the round's first half (counted in finished operations:
   * on a fast machine the whole round can finish within any fixed time), then after random times
   * up, restarting it each time, until `done`; answers the number of kills.
   */
  async function crashLoop(done: () => boolean, finished: () => number): Promise<number> {
    const service = platform.service('identity');
    const firstAt = randomInt(Math.ceil(OPERATIONS * 0.05), Math.floor(OPERATIONS * 0.5));
    let kills = 0;
    while (!done()) {
      if (kills > 0) await sleep(1_000 + randomInt(3_000));
      else while (!done() && finished() < firstAt) await sleep(2);
      if (done()) break;
      await service.kill();
      kills++;
      await service.start(60_000);
      connect();
    }
    return kills;
  }

  for (let round = 1; round <= ROUNDS; round++) {
    it(`charges each operation once and keeps balance = sum of the ledger (round ${round} of ${ROUNDS})`, async () => {
      const owner = await untilAnswered(() =>
        identity.register({
          email: `fault-${randomBytes(6).toString('hex')}@example.com`,
          password: 'password-123',
          fullName: '',
          company: '',
        }),
      );
      const tenantId = owner.tenantId;
      const userId = owner.user!.id;
      let expected = WELCOME;
      let finished = 0;

      const operation = async (n: number): Promise<void> => {
        if (n % 7 === 0) {
          const credits = 1 + randomInt(20);
          await untilAnswered(() =>
            identity.purchaseCredits({ tenantId, userId, credits, idempotencyKey: `buy-${n}` }),
          );
          expected += credits;
          return;
        }
        const operationId = `chat:${n}`;
        const reserved = 1 + randomInt(5);
        // Every other operation goes through the batch calls, as a workflow run's credit does.
        const batched = n % 2 === 1;
        const reservation = { tenantId, operationId, amount: reserved, description: 'chat' };
        await untilAnswered(() => (batched ? reserveInBatch(reservation) : identity.reserve(reservation)));
        if (n % 10 === 0) {
          // The chat failed: its reservation goes back whole.
          const released = await untilAnswered(() => identity.release({ tenantId, operationId, description: '' }));
          expect(released.charged).toBe(0);
          return;
        }
        const used = 1 + randomInt(reserved);
        const settlement = { tenantId, operationId, used, description: 'chat settled' };
        const settled = await untilAnswered(() => (batched ? settleInBatch(settlement) : identity.settle(settlement)));
        expect(settled).toMatchObject({ charged: used, returned: reserved - used, released: false });
        expected -= used;
      };

      let next = 0;
      const workers = Array.from({ length: PARALLEL }, async () => {
        while (next < OPERATIONS) {
          const n = next++;
          await operation(n);
          finished++;
        }
      });
      let failed = false;
      const crashes = crashLoop(
        () => failed || finished >= OPERATIONS,
        () => finished,
      );
      try {
        await Promise.all(workers);
      } catch (error) {
        failed = true;
        throw error;
      } finally {
        await crashes;
      }
      const kills = await crashes;
      expect(kills).toBeGreaterThan(0);

      const balance = (await untilAnswered(() => identity.getBalance({ tenantId }))).balance;
      expect(balance).toBe(expected);

      const entries = await db
        .collection<Ledger>('credit_entries')
        .find({ tenant_id: tenantId })
        .sort({ seq: 1 })
        .toArray();
      // A clean chain: links 1..n, each balance the previous plus its amount, never below zero.
      expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1));
      let running = 0;
      for (const entry of entries) {
        running += entry.amount;
        expect(entry.balance_after).toBe(running);
        expect(entry.balance_after).toBeGreaterThanOrEqual(0);
      }
      expect(running).toBe(balance);
      // Each operation once; each reservation closed exactly once.
      const keys = entries.map((e) => e.idempotency_key);
      expect(new Set(keys).size).toBe(keys.length);
      const purchases = entries.filter((e) => e.type === 'purchase');
      const reserves = entries.filter((e) => e.type === 'reserve');
      const closes = entries.filter((e) => e.type === 'settle' || e.type === 'release');
      expect(purchases).toHaveLength(Math.ceil(OPERATIONS / 7));
      expect(reserves).toHaveLength(OPERATIONS - purchases.length);
      expect(closes.map((e) => e.idempotency_key).sort()).toEqual(
        reserves.map((e) => `${e.idempotency_key}:close`).sort(),
      );
      const line = `round ${round}: passed, ${kills} kills, ${entries.length} entries, balance ${balance}\n`;
      if (REPORT) appendFileSync(REPORT, line);
      else process.stdout.write(line);
    }, 1_800_000);
  }
});
