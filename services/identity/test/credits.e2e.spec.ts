import { randomBytes } from 'node:crypto';
import { identityV1 } from '@agentplatform/contracts';
import { DomainError, createGrpcClient, openChannel, type Channel } from '@agentplatform/service-kit';
import { EventTap, startPlatform, suiteFixture, waitFor } from '@agentplatform/testing';

/** The credit ledger over gRPC, as agent-memory and workflow use it (contracts-cross: Charge/Refund/GetBalance). */
describe('identity credits over gRPC', () => {
  const platform = suiteFixture(() => startPlatform({ services: ['identity'] }));
  const tap = suiteFixture(() => EventTap.start(platform, 'credits'));
  let channel: Channel;
  let identity: ReturnType<typeof createGrpcClient<typeof identityV1.IdentityServiceDefinition>>;

  async function newAccount(): Promise<{ tenantId: string; userId: string }> {
    const answer = await identity.register({
      email: `credits-${randomBytes(6).toString('hex')}@example.com`,
      password: 'password-123',
      fullName: '',
      company: '',
    });
    return { tenantId: answer.tenantId, userId: answer.user!.id };
  }

  async function newTenant(): Promise<string> {
    return (await newAccount()).tenantId;
  }

  async function failure(promise: Promise<unknown>): Promise<DomainError> {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }

  beforeAll(() => {
    channel = openChannel(`127.0.0.1:${platform.service('identity').ready!.grpc_port}`);
    identity = createGrpcClient(identityV1.IdentityServiceDefinition, channel, { deadlineMs: 5_000 });
  });

  afterAll(() => {
    channel?.close();
  });

  it('starts a tenant with 1,000 welcome credits', async () => {
    const tenantId = await newTenant();
    expect(await identity.getBalance({ tenantId })).toEqual({ balance: 1000 });
  });

  it('charges once per idempotency key, even when retried concurrently', async () => {
    const tenantId = await newTenant();
    const charge = {
      tenantId,
      amount: 30,
      idempotencyKey: 'run:exe_1',
      description: 'workflow run',
    };
    const answers = await Promise.all([identity.charge(charge), identity.charge(charge), identity.charge(charge)]);
    expect(new Set(answers.map((a) => a.entryId)).size).toBe(1);
    expect(answers[0].balance).toBe(970);
    expect((await identity.getBalance({ tenantId })).balance).toBe(970);
    const again = await identity.charge(charge);
    expect(again).toEqual(answers[0]);
    expect((await identity.getBalance({ tenantId })).balance).toBe(970);
  });

  it('refuses a charge above the balance with insufficient_credits', async () => {
    const tenantId = await newTenant();
    const error = await failure(identity.charge({ tenantId, amount: 1001, idempotencyKey: 'big', description: '' }));
    expect(error.code).toBe('insufficient_credits');
    expect((await identity.getBalance({ tenantId })).balance).toBe(1000);
  });

  it('reserves, then settles what was used and gives back the rest, once', async () => {
    const tenantId = await newTenant();
    const reserved = await identity.reserve({ tenantId, operationId: 'chat:m1', amount: 5, description: 'chat' });
    expect(reserved).toMatchObject({ balance: 995, reserved: 5 });
    expect(Date.parse(reserved.expiresAt)).toBeGreaterThan(Date.now());
    expect(await identity.reserve({ tenantId, operationId: 'chat:m1', amount: 5, description: 'chat' })).toEqual(
      reserved,
    );
    const settle = { tenantId, operationId: 'chat:m1', used: 2, description: 'chat: 1,500 tokens' };
    const settled = await identity.settle(settle);
    expect(settled).toEqual({ balance: 998, charged: 2, returned: 3, released: false });
    expect(await identity.settle(settle)).toEqual(settled);
    // A release after the settle changes nothing: a reservation closes once.
    expect(await identity.release({ tenantId, operationId: 'chat:m1', description: '' })).toEqual(settled);
    const { balance, entries } = await identity.getCredits({ tenantId, limit: 10 });
    expect(balance).toBe(998);
    expect(entries.map((e) => [e.type, e.amount, e.balanceAfter])).toEqual([
      ['settle', 3, 998],
      ['reserve', -5, 995],
      ['grant', 1000, 1000],
    ]);
  });

  it('releases a whole reservation on failure; a settle afterwards charges nothing', async () => {
    const tenantId = await newTenant();
    await identity.reserve({ tenantId, operationId: 'chat:m2', amount: 7, description: 'chat' });
    const released = await identity.release({ tenantId, operationId: 'chat:m2', description: 'provider failed' });
    expect(released).toEqual({ balance: 1000, charged: 0, returned: 7, released: true });
    expect(await identity.settle({ tenantId, operationId: 'chat:m2', used: 1, description: '' })).toEqual(released);
    expect((await identity.getBalance({ tenantId })).balance).toBe(1000);
  });

  it('refuses a reservation the balance cannot cover, and caps an overrun at the balance', async () => {
    const tenantId = await newTenant();
    const refused = await failure(
      identity.reserve({ tenantId, operationId: 'chat:big', amount: 1001, description: '' }),
    );
    expect(refused.code).toBe('insufficient_credits');
    await identity.reserve({ tenantId, operationId: 'chat:m3', amount: 990, description: '' });
    const settled = await identity.settle({ tenantId, operationId: 'chat:m3', used: 1200, description: '' });
    expect(settled).toEqual({ balance: 0, charged: 1000, returned: 0, released: false });
    const missing = await failure(identity.settle({ tenantId, operationId: 'chat:none', used: 1, description: '' }));
    expect(missing.code).toBe('not_found');
  });

  it('answers exactly as many parallel reservations as the balance covers', async () => {
    const tenantId = await newTenant();
    await identity.charge({ tenantId, amount: 999, idempotencyKey: 'drain', description: '' });
    const answers = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        identity.reserve({ tenantId, operationId: `chat:p${i}`, amount: 1, description: '' }),
      ),
    );
    expect(answers.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
    expect((await identity.getBalance({ tenantId })).balance).toBe(0);
  });

  it('answers each item of ReserveMany and SettleMany as its own call would, charging each once', async () => {
    const tenantId = await newTenant();
    const other = await newTenant();
    await identity.charge({ tenantId, amount: 997, idempotencyKey: 'drain', description: '' });
    const reserve = (operationId: string, tenant = tenantId) => ({
      tenantId: tenant,
      operationId,
      amount: 1,
      description: 'workflow run',
    });
    // Three credits left: run:1 twice (one reservation), run:2, run:3, then run:4 is refused;
    // another tenant's item and one without a tenant are answered on their own.
    const { outcomes } = await identity.reserveMany({
      items: [
        reserve('run:1'),
        reserve('run:1'),
        reserve('run:2'),
        reserve('run:x', other),
        reserve('run:3'),
        reserve('run:4'),
        reserve('run:5', ''),
      ],
    });
    expect(outcomes.map((o) => o.outcome?.$case)).toEqual([
      'reserved',
      'reserved',
      'reserved',
      'reserved',
      'reserved',
      'error',
      'error',
    ]);
    const [first, twin] = outcomes.map((o) => (o.outcome?.$case === 'reserved' ? o.outcome.value : undefined));
    expect(twin!.entryId).toBe(first!.entryId);
    expect(outcomes[5].outcome).toMatchObject({ $case: 'error', value: { code: 'insufficient_credits' } });
    expect(outcomes[6].outcome).toMatchObject({ $case: 'error', value: { code: 'validation_error' } });
    expect((await identity.getBalance({ tenantId })).balance).toBe(0);
    expect((await identity.getBalance({ tenantId: other })).balance).toBe(999);

    const settle = (operationId: string) => ({ tenantId, operationId, used: 1, description: 'run started' });
    const settled = await identity.settleMany({ items: ['run:1', 'run:2', 'run:3', 'run:4'].map(settle) });
    expect(settled.outcomes.map((o) => o.outcome?.$case)).toEqual(['settled', 'settled', 'settled', 'error']);
    expect(settled.outcomes[0].outcome).toMatchObject({ $case: 'settled', value: { charged: 1, returned: 0 } });
    expect(settled.outcomes[3].outcome).toMatchObject({ $case: 'error', value: { code: 'not_found' } });
    // A repeat (a retried settle) answers the same and charges nothing more.
    const again = await identity.settleMany({ items: ['run:1', 'run:2'].map(settle) });
    expect(again.outcomes).toEqual(settled.outcomes.slice(0, 2));
    expect((await identity.getBalance({ tenantId })).balance).toBe(0);
    const ledger = await identity.getCredits({ tenantId, limit: 20 });
    expect(ledger.entries.filter((e) => e.type === 'settle')).toHaveLength(3);
  });

  it('refuses a ReserveMany of more than 256 items as a whole', async () => {
    const tenantId = await newTenant();
    const items = Array.from({ length: 257 }, (_, i) => ({
      tenantId,
      operationId: `run:${i}`,
      amount: 1,
      description: '',
    }));
    const error = await failure(identity.reserveMany({ items }));
    expect(error.code).toBe('validation_error');
    expect((await identity.getBalance({ tenantId })).balance).toBe(1000);
  });

  it('refunds idempotently', async () => {
    const tenantId = await newTenant();
    await identity.charge({ tenantId, amount: 10, idempotencyKey: 'c1', description: '' });
    const refund = { tenantId, amount: 10, idempotencyKey: 'r1', description: 'failed run' };
    expect((await identity.refund(refund)).balance).toBe(1000);
    expect((await identity.refund(refund)).balance).toBe(1000);
    expect((await identity.getBalance({ tenantId })).balance).toBe(1000);
  });

  it('validates amounts and keys, and answers not_found for an unknown tenant', async () => {
    const tenantId = await newTenant();
    const bad = await failure(identity.charge({ tenantId, amount: 0, idempotencyKey: '', description: '' }));
    expect(bad.code).toBe('validation_error');
    expect(bad.details.map((d) => d.field).sort()).toEqual(['amount', 'idempotency_key']);
    const missing = await failure(identity.getBalance({ tenantId: 'ten_missing' }));
    expect(missing.code).toBe('not_found');
  });

  it('fires billing.credits.low once when the balance drops below 100, re-armed by a purchase', async () => {
    const { tenantId, userId } = await newAccount();
    const lows = () => tap.filter((e) => e.type === 'billing.credits.low' && e.tenant_id === tenantId);
    await identity.charge({ tenantId, amount: 850, idempotencyKey: 'a', description: '' });
    await identity.charge({ tenantId, amount: 60, idempotencyKey: 'b', description: '' });
    await identity.charge({ tenantId, amount: 10, idempotencyKey: 'c', description: '' });
    const [low] = await waitFor(() => (lows().length > 0 ? lows() : undefined), {
      timeoutMs: 30_000,
      what: 'billing.credits.low',
    });
    expect(low.data).toEqual({ balance: 90, threshold: 100 });

    const purchase = await identity.purchaseCredits({ tenantId, userId, credits: 100, idempotencyKey: 'p1' });
    expect(purchase.balance).toBe(180);
    // A reservation's dip is not a low balance: it is released a moment later.
    await identity.reserve({ tenantId, operationId: 'chat:dip', amount: 150, description: '' });
    await identity.release({ tenantId, operationId: 'chat:dip', description: '' });
    await identity.charge({ tenantId, amount: 100, idempotencyKey: 'd', description: '' });
    await waitFor(() => lows().length === 2, { timeoutMs: 30_000, what: 'second billing.credits.low' });
    expect(lows().map((e) => e.data)).toEqual([
      { balance: 90, threshold: 100 },
      { balance: 80, threshold: 100 },
    ]);
    const credits = await identity.getCredits({ tenantId, limit: 10 });
    expect(credits.entries.map((e) => e.type)).toEqual([
      'charge',
      'release',
      'reserve',
      'purchase',
      'charge',
      'charge',
      'charge',
      'grant',
    ]);
  });

  it('lets only the owner purchase', async () => {
    const { tenantId } = await newAccount();
    const stranger = await newAccount();
    const error = await failure(
      identity.purchaseCredits({ tenantId, userId: stranger.userId, credits: 10, idempotencyKey: 'x' }),
    );
    expect(error.code).toBe('forbidden');
  });

  describe('with a reservation expiry of one second', () => {
    const short = suiteFixture(() =>
      startPlatform({
        services: ['identity'],
        serviceEnv: { identity: { CREDIT_HOLD_TTL_SECONDS: '1', CREDIT_SWEEP_INTERVAL_SECONDS: '1' } },
      }),
    );
    let shortChannel: Channel;

    beforeAll(() => {
      shortChannel = openChannel(`127.0.0.1:${short.service('identity').ready!.grpc_port}`);
    });

    afterAll(() => {
      shortChannel?.close();
    });

    it('releases a reservation its holder does not settle in time; a late settle still charges once', async () => {
      const client = createGrpcClient(identityV1.IdentityServiceDefinition, shortChannel, { deadlineMs: 5_000 });
      const { tenantId } = await client.register({
        email: `expiry-${randomBytes(6).toString('hex')}@example.com`,
        password: 'password-123',
        fullName: '',
        company: '',
      });
      await client.reserve({ tenantId, operationId: 'run:exe_lost', amount: 40, description: 'run' });
      expect((await client.getBalance({ tenantId })).balance).toBe(960);
      await waitFor(async () => (await client.getBalance({ tenantId })).balance === 1000, {
        timeoutMs: 30_000,
        what: 'the expired reservation released',
      });
      const { entries } = await client.getCredits({ tenantId, limit: 10 });
      expect(entries.map((e) => e.type)).toEqual(['release', 'reserve', 'grant']);
      // The work was done after all (its holder could not reach identity in time): the settle that
      // arrives late charges what it used, once.
      const late = await client.settle({ tenantId, operationId: 'run:exe_lost', used: 1, description: '' });
      expect(late).toEqual({ balance: 999, charged: 1, returned: 0, released: false });
      await client.settle({ tenantId, operationId: 'run:exe_lost', used: 1, description: '' });
      expect((await client.getBalance({ tenantId })).balance).toBe(999);
    });
  });
});
