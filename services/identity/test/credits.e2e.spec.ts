import { randomBytes } from 'node:crypto';
import type { Consumer } from 'kafkajs';
import { identityV1 } from '@agentplatform/contracts';
import { createKafka, type EventEnvelope } from '@agentplatform/events';
import { DomainError, createGrpcClient, createLogger, openChannel, type Channel } from '@agentplatform/service-kit';
import { startPlatform, waitFor, type Platform } from '@agentplatform/testing';

/** The credit ledger over gRPC, as agent-memory and workflow use it (contracts-cross: Charge/Refund/GetBalance). */
describe('identity credits over gRPC', () => {
  let platform: Platform;
  let channel: Channel;
  let identity: ReturnType<typeof createGrpcClient<typeof identityV1.IdentityServiceDefinition>>;
  let consumer: Consumer;
  const events: EventEnvelope[] = [];

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

  beforeAll(async () => {
    platform = await startPlatform({ services: ['identity'] });
    channel = openChannel(`127.0.0.1:${platform.service('identity').ready!.grpc_port}`);
    identity = createGrpcClient(identityV1.IdentityServiceDefinition, channel, { deadlineMs: 5_000 });
    const kafka = createKafka({
      brokers: platform.kafkaBrokers,
      clientId: 'identity-test',
      logger: createLogger('test', 'silent'),
    });
    consumer = kafka.consumer({ groupId: `identity-test-${platform.suffix}` });
    await consumer.connect();
    await waitFor(
      async () => {
        await consumer.subscribe({ topic: platform.topic, fromBeginning: true });
        return true;
      },
      { timeoutMs: 30_000, what: 'events topic' },
    );
    await consumer.run({
      eachMessage: async ({ message }) => {
        if (message.value) events.push(JSON.parse(message.value.toString()) as EventEnvelope);
      },
    });
  });

  afterAll(async () => {
    await consumer?.disconnect();
    channel?.close();
    await platform?.stop();
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
      allowNegative: false,
    };
    const answers = await Promise.all([identity.charge(charge), identity.charge(charge), identity.charge(charge)]);
    expect(new Set(answers.map((a) => a.entryId)).size).toBe(1);
    expect(answers[0].balance).toBe(970);
    expect((await identity.getBalance({ tenantId })).balance).toBe(970);
    const again = await identity.charge(charge);
    expect(again).toEqual(answers[0]);
    expect((await identity.getBalance({ tenantId })).balance).toBe(970);
  });

  it('refuses a charge above the balance with insufficient_credits unless allow_negative', async () => {
    const tenantId = await newTenant();
    const error = await failure(
      identity.charge({ tenantId, amount: 1001, idempotencyKey: 'big', description: '', allowNegative: false }),
    );
    expect(error.code).toBe('insufficient_credits');
    expect((await identity.getBalance({ tenantId })).balance).toBe(1000);
    const negative = await identity.charge({
      tenantId,
      amount: 1005,
      idempotencyKey: 'chat:msg_1',
      description: 'chat',
      allowNegative: true,
    });
    expect(negative.balance).toBe(-5);
  });

  it('refunds idempotently', async () => {
    const tenantId = await newTenant();
    await identity.charge({ tenantId, amount: 10, idempotencyKey: 'c1', description: '', allowNegative: false });
    const refund = { tenantId, amount: 10, idempotencyKey: 'r1', description: 'failed run' };
    expect((await identity.refund(refund)).balance).toBe(1000);
    expect((await identity.refund(refund)).balance).toBe(1000);
    expect((await identity.getBalance({ tenantId })).balance).toBe(1000);
  });

  it('validates amounts and keys, and answers not_found for an unknown tenant', async () => {
    const tenantId = await newTenant();
    const bad = await failure(
      identity.charge({ tenantId, amount: 0, idempotencyKey: '', description: '', allowNegative: false }),
    );
    expect(bad.code).toBe('validation_error');
    expect(bad.details.map((d) => d.field).sort()).toEqual(['amount', 'idempotency_key']);
    const missing = await failure(identity.getBalance({ tenantId: 'ten_missing' }));
    expect(missing.code).toBe('not_found');
  });

  it('fires billing.credits.low once when the balance drops below 100, re-armed by a purchase', async () => {
    const { tenantId, userId } = await newAccount();
    const lows = () => events.filter((e) => e.type === 'billing.credits.low' && e.tenant_id === tenantId);
    await identity.charge({ tenantId, amount: 850, idempotencyKey: 'a', description: '', allowNegative: false });
    await identity.charge({ tenantId, amount: 60, idempotencyKey: 'b', description: '', allowNegative: false });
    await identity.charge({ tenantId, amount: 10, idempotencyKey: 'c', description: '', allowNegative: false });
    const [low] = await waitFor(() => (lows().length > 0 ? lows() : undefined), {
      timeoutMs: 30_000,
      what: 'billing.credits.low',
    });
    expect(low.data).toEqual({ balance: 90, threshold: 100 });

    const purchase = await identity.purchaseCredits({ tenantId, userId, credits: 100, idempotencyKey: 'p1' });
    expect(purchase.balance).toBe(180);
    await identity.charge({ tenantId, amount: 100, idempotencyKey: 'd', description: '', allowNegative: false });
    await waitFor(() => lows().length === 2, { timeoutMs: 30_000, what: 'second billing.credits.low' });
    expect(lows().map((e) => e.data)).toEqual([
      { balance: 90, threshold: 100 },
      { balance: 80, threshold: 100 },
    ]);
    const credits = await identity.getCredits({ tenantId, limit: 10 });
    expect(credits.entries.map((e) => e.type)).toEqual(['charge', 'purchase', 'charge', 'charge', 'charge', 'grant']);
  });

  it('lets only the owner purchase', async () => {
    const { tenantId } = await newAccount();
    const stranger = await newAccount();
    const error = await failure(
      identity.purchaseCredits({ tenantId, userId: stranger.userId, credits: 10, idempotencyKey: 'x' }),
    );
    expect(error.code).toBe('forbidden');
  });
});
