import { identityV1 } from '@agentplatform/contracts';
import { identityCreditsClient, type CreditsClient } from './credits-client.js';
import { DomainError, InsufficientCreditsError } from './errors.js';
import { openChannel } from './grpc-client.js';
import { createGrpcServer } from './grpc-server.js';
import { createLogger } from './logger.js';
import { Metrics } from './metrics.js';

/**
 * An identity replica from before the batch calls, over real gRPC: ReserveMany and SettleMany
 * answer UNIMPLEMENTED, as a server without them does. A workflow replica rolled out first must
 * still charge its runs, one call per item, each answered as the batch would answer it.
 */
describe('batch credit calls against an identity replica without them', () => {
  const { server } = createGrpcServer({ logger: createLogger('test', 'silent'), metrics: new Metrics('test') });
  const reserved: string[] = [];
  const settled: string[] = [];
  let credits: CreditsClient;
  let channel: ReturnType<typeof openChannel>;

  beforeAll(async () => {
    // Identity's service with only the single calls: gRPC answers UNIMPLEMENTED for the others.
    const { reserve, settle } = identityV1.IdentityServiceDefinition.methods;
    const older = { ...identityV1.IdentityServiceDefinition, methods: { reserve, settle } };
    server.add(older, {
      async reserve(req: identityV1.ReserveRequest): Promise<identityV1.ReserveResponse> {
        if (req.tenantId === 'ten_poor') throw new InsufficientCreditsError();
        reserved.push(req.operationId);
        return { balance: 10, entryId: `ent_${req.operationId}`, reserved: req.amount, expiresAt: '' };
      },
      async settle(req: identityV1.SettleRequest): Promise<identityV1.SettleResponse> {
        settled.push(req.operationId);
        return { balance: 9, charged: req.used, returned: 0, released: false };
      },
    });
    const port = await server.listen('127.0.0.1:0');
    channel = openChannel(`127.0.0.1:${port}`);
    credits = identityCreditsClient(channel, {
      deadlineMs: 2_000,
      metrics: new Metrics('t'),
    });
  });

  afterAll(() => {
    channel.close();
    server.forceShutdown();
  });

  it('reserves and settles item by item, each refusal kept to its own item', async () => {
    const item = (tenantId: string, operationId: string) => ({ tenantId, operationId, amount: 1, description: 'run' });
    const answers = await credits.reserveMany([item('ten_a', 'run:1'), item('ten_poor', 'run:2')]);
    expect(answers[0]).toBeUndefined();
    expect(answers[1]).toMatchObject({ code: 'insufficient_credits' });
    expect(reserved).toEqual(['run:1']);

    expect(
      await credits.settleMany([{ tenantId: 'ten_a', operationId: 'run:1', used: 1, description: 'run' }]),
    ).toEqual([undefined]);
    expect(settled).toEqual(['run:1']);
  });

  it('answers concurrent reserves and settles item by item', async () => {
    const item = (tenantId: string, operationId: string) => ({ tenantId, operationId, amount: 1, description: 'chat' });
    const reserves = await Promise.allSettled(
      ['ten_a', 'ten_poor', 'ten_b', 'ten_poor'].map((tenantId, i) => credits.reserve(item(tenantId, `chat:g${i}`))),
    );
    expect(reserves.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    expect(reserved).toEqual(expect.arrayContaining(['chat:g0', 'chat:g2']));

    const settles = await Promise.all(
      ['chat:g0', 'chat:g2'].map((operationId) =>
        credits.settle({ tenantId: 'ten_a', operationId, used: 1, description: 'chat' }),
      ),
    );
    expect(settles).toEqual([
      { charged: 1, released: false },
      { charged: 1, released: false },
    ]);
  });
});

/**
 * Concurrent reserves and settles over real gRPC against identity's batch calls: the first goes
 * alone as the single call, those made meanwhile go together in one batch call whatever their
 * tenants, and each caller gets its own item's answer.
 */
describe('grouped reserves and settles', () => {
  const { server } = createGrpcServer({ logger: createLogger('test', 'silent'), metrics: new Metrics('test') });
  const calls: string[] = [];
  let credits: CreditsClient;
  let channel: ReturnType<typeof openChannel>;

  /** Reserves fail for ten_poor; a settle of an `expired:` operation was released. */
  const reserve = async (req: identityV1.ReserveRequest): Promise<identityV1.ReserveResponse> => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (req.tenantId === 'ten_poor') throw new InsufficientCreditsError();
    return { balance: 10, entryId: `ent_${req.operationId}`, reserved: req.amount, expiresAt: '' };
  };
  const settle = async (req: identityV1.SettleRequest): Promise<identityV1.SettleResponse> => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const released = req.operationId.startsWith('expired:');
    return { balance: 9, charged: released ? 0 : req.used, returned: 0, released };
  };
  const outcome = <V, C extends string>(work: Promise<V>, $case: C) =>
    work.then(
      (value) => ({ outcome: { $case, value } }),
      (error: DomainError) => ({
        outcome: { $case: 'error' as const, value: { code: error.code, message: error.message, retryAfterSeconds: 0 } },
      }),
    );

  beforeAll(async () => {
    const { reserve: r, settle: s, reserveMany: rm, settleMany: sm } = identityV1.IdentityServiceDefinition.methods;
    const credit = {
      ...identityV1.IdentityServiceDefinition,
      methods: { reserve: r, settle: s, reserveMany: rm, settleMany: sm },
    };
    server.add(credit, {
      async reserve(req: identityV1.ReserveRequest) {
        calls.push(`reserve ${req.operationId}`);
        return reserve(req);
      },
      async settle(req: identityV1.SettleRequest) {
        calls.push(`settle ${req.operationId}`);
        return settle(req);
      },
      async reserveMany(req: identityV1.ReserveManyRequest) {
        calls.push(`reserveMany ${req.items.map((i) => i.operationId).join(' ')}`);
        if (req.items.some((i) => i.operationId.startsWith('unavailable:')))
          throw new DomainError('service_unavailable', 'the ledger is unavailable');
        return { outcomes: await Promise.all(req.items.map((i) => outcome(reserve(i), 'reserved'))) };
      },
      async settleMany(req: identityV1.SettleManyRequest) {
        calls.push(`settleMany ${req.items.map((i) => i.operationId).join(' ')}`);
        return { outcomes: await Promise.all(req.items.map((i) => outcome(settle(i), 'settled'))) };
      },
    });
    const port = await server.listen('127.0.0.1:0');
    channel = openChannel(`127.0.0.1:${port}`);
    credits = identityCreditsClient(channel, { deadlineMs: 2_000, metrics: new Metrics('t') });
  });

  afterAll(() => {
    channel.close();
    server.forceShutdown();
  });

  beforeEach(() => calls.splice(0));

  it('sends the reserves made while one is in flight in one call, a refusal failing only its own', async () => {
    const item = (tenantId: string, operationId: string) => ({ tenantId, operationId, amount: 5, description: 'chat' });
    const first = credits.reserve(item('ten_a', 'chat:1'));
    const rest = [
      credits.reserve(item('ten_b', 'chat:2')),
      credits.reserve(item('ten_poor', 'chat:3')),
      credits.reserve(item('ten_a', 'chat:4')),
    ];
    const answers = await Promise.allSettled([first, ...rest]);
    expect(answers.map((a) => a.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((answers[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'insufficient_credits' });
    expect(calls).toEqual(['reserve chat:1', 'reserveMany chat:2 chat:3 chat:4']);
  });

  it('answers each grouped settle with its own settlement', async () => {
    const item = (operationId: string) => ({ tenantId: 'ten_a', operationId, used: 3, description: 'chat' });
    const answers = await Promise.all(
      ['chat:1', 'chat:2', 'expired:3', 'chat:4'].map((id) => credits.settle(item(id))),
    );
    expect(answers).toEqual([
      { charged: 3, released: false },
      { charged: 3, released: false },
      { charged: 0, released: true },
      { charged: 3, released: false },
    ]);
    expect(calls).toEqual(['settle chat:1', 'settleMany chat:2 expired:3 chat:4']);
  });

  it('fails every item of a batch call that fails as a whole; the next call goes out', async () => {
    const item = (operationId: string) => ({ tenantId: 'ten_a', operationId, amount: 1, description: 'chat' });
    const answers = await Promise.allSettled(
      ['chat:1', 'chat:2', 'unavailable:3'].map((operationId) => credits.reserve(item(operationId))),
    );
    expect(answers.map((a) => a.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect((answers[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'service_unavailable' });
    await expect(credits.reserve(item('chat:4'))).resolves.toBeUndefined();
    expect(calls).toEqual(['reserve chat:1', 'reserveMany chat:2 unavailable:3', 'reserve chat:4']);
  });
});
