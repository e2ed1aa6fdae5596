import mongoose, { type Connection } from 'mongoose';
import { AgentPlatformClient, ApiError, constructWebhookEvent, verifyWebhookSignature } from '@agentplatform/sdk';
import { createEvent, createKafka, Outbox, OutboxRelay } from '@agentplatform/events';
import { createLogger } from '@agentplatform/service-kit';
import {
  api,
  createApiKey,
  Receiver,
  registerUser,
  startPlatform,
  suiteFixture,
  waitFor,
  type RegisteredUser,
} from '@agentplatform/testing';

/** The webhook API through the gateway, driven with the public SDK. */
describe('webhooks API', () => {
  const logger = createLogger('gateway-webhooks-test', 'silent');
  const platform = suiteFixture(() =>
    startPlatform({
      services: ['identity', 'webhook'],
      env: { DEFAULT_PLAN: 'enterprise' },
      serviceEnv: { webhook: { WEBHOOK_RETRY_SCHEDULE_MS: '0,200,200,200,200', WEBHOOK_POLL_INTERVAL_MS: '100' } },
    }),
  );
  const receiver = suiteFixture(() => Receiver.start());
  let user: RegisteredUser;
  let sdk: AgentPlatformClient;
  let connection: Connection;
  let outbox: Outbox;
  let relay: OutboxRelay;

  beforeAll(async () => {
    user = await registerUser(platform.url);
    sdk = new AgentPlatformClient({ baseUrl: platform.url, token: user.accessToken });
    connection = await mongoose
      .createConnection(platform.mongoUri, { dbName: `producer_${platform.suffix}` })
      .asPromise();
    outbox = await Outbox.open(connection);
    relay = new OutboxRelay({
      outbox,
      kafka: createKafka({ brokers: platform.kafkaBrokers, clientId: 'gateway-webhooks-test', logger }),
      topic: platform.topic,
      logger,
      pollIntervalMs: 50,
    });
    relay.start();
  });

  afterAll(async () => {
    await relay?.stop();
    await connection?.close();
  });

  it('creates a webhook (201, signing secret once), lists and gets it without the secret', async () => {
    const created = await api(platform.url, user.accessToken).post('/api/v1/webhooks', {
      url: receiver.url('/create'),
      events: ['agent.message', 'workflow.completed'],
      metadata: { team: 'support' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^wh_/),
      url: receiver.url('/create'),
      events: ['agent.message', 'workflow.completed'],
      status: 'active',
      signing_secret: expect.stringMatching(/^whsec_/),
      created_at: expect.any(String),
    });
    const list = await sdk.webhooks.list();
    expect(list.items.find((w) => w.id === created.body.id)).toMatchObject({
      url: receiver.url('/create'),
      status: 'active',
    });
    expect(JSON.stringify(list)).not.toContain(created.body.signing_secret);
    const fetched = await sdk.webhooks.get(created.body.id);
    expect(fetched).toMatchObject({ id: created.body.id, metadata: { team: 'support' } });
    expect(JSON.stringify(fetched)).not.toContain(created.body.signing_secret);
  });

  it('answers bad input with 400 naming the field, in both error shapes', async () => {
    const error = await sdk.webhooks
      .create({ url: receiver.url(), events: ['agent.created', 'agent.nope'] })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'validation_error' });
    expect(error.detail('events[1]')).toBeDefined();

    const flat = await api(platform.url, user.accessToken).post('/api/v1/webhooks', {
      url: 'ftp://x.example/hook',
      events: ['*'],
    });
    expect(flat.status).toBe(400);
    expect(flat.body).toMatchObject({ error: 'validation_error', details: [{ field: 'url' }] });
    const missing = await api(platform.url, user.accessToken).post('/api/v1/webhooks', { events: ['*'] });
    expect(missing.status).toBe(400);
    expect(missing.body.details).toEqual([{ field: 'url', message: 'is required' }]);
    const envelope = await api(platform.url, user.accessToken).post('/v1/webhooks', {
      url: receiver.url(),
      events: ['nope'],
    });
    expect(envelope.status).toBe(400);
    expect(envelope.body).toMatchObject({
      success: false,
      error: { code: 'validation_error', details: [{ field: 'events[0]' }] },
    });
  });

  it('delivers the tenant’s events signed, and shows them in the delivery log with every attempt', async () => {
    receiver.on('/deliver', Receiver.sequence([503, 200]));
    const hook = await sdk.webhooks.create({ url: receiver.url('/deliver'), events: ['agent.created'] });
    const event = createEvent('agent.created', user.tenantId, {
      agent_id: 'agt_x',
      name: 'Bot',
      type: 'support',
      status: 'active',
    });
    await outbox.publish([event]);
    const [, request] = await receiver.waitForRequests(2, { path: '/deliver' });
    expect(verifyWebhookSignature(request.body, request.headers['x-service-signature'], hook.signing_secret)).toBe(
      true,
    );
    expect(constructWebhookEvent(request.body, request.headers['x-service-signature'], hook.signing_secret)).toEqual(
      event,
    );

    const log = await waitFor(async () => {
      const out = await sdk.webhooks.listDeliveries(hook.id, { limit: 5 });
      return out.items[0]?.status === 'delivered' ? out : undefined;
    });
    expect(log.items).toEqual([
      expect.objectContaining({
        event_id: event.id,
        event_type: 'agent.created',
        status: 'delivered',
        response_status: 200,
        attempts: 2,
        delivered_at: expect.any(String),
        response_time_ms: expect.any(Number),
      }),
    ]);
    const detail = await sdk.webhooks.getDelivery(hook.id, log.items[0].id);
    expect(detail.attempt_log.map((a) => [a.number, a.response_status, a.success])).toEqual([
      [1, 503, false],
      [2, 200, true],
    ]);
    expect(detail.attempt_log[0].response_headers['content-type']).toBe('text/plain');
  });

  it('test-sends synchronously, rotates the secret, redelivers and recovers', async () => {
    const hook = await sdk.webhooks.create({
      url: receiver.url('/ops'),
      events: ['*'],
      secret: 'first-secret-0123456789',
    });
    const test = await sdk.webhooks.test(hook.id, 'billing.credits.low');
    expect(test).toMatchObject({ success: true, response_status: 200, delivery_id: expect.stringMatching(/^dlv_/) });
    expect(test.response_time_ms).toEqual(expect.any(Number));

    const rotated = await sdk.webhooks.rotateSecret(hook.id);
    await sdk.webhooks.test(hook.id, 'agent.created');
    const signed = receiver.to('/ops')[1];
    expect(verifyWebhookSignature(signed.body, signed.headers['x-service-signature'], 'first-secret-0123456789')).toBe(
      true,
    );
    expect(verifyWebhookSignature(signed.body, signed.headers['x-service-signature'], rotated.signing_secret)).toBe(
      true,
    );

    const redelivered = await sdk.webhooks.redeliver(hook.id, test.delivery_id);
    expect(redelivered).toMatchObject({ id: test.delivery_id, status: 'pending' });
    await receiver.waitForRequests(3, { path: '/ops' });

    receiver.on('/ops', { status: 500 });
    const failing = await sdk.webhooks.test(hook.id, 'agent.updated');
    expect(failing).toMatchObject({ success: false, response_status: 500 });
    receiver.on('/ops', { status: 200 });
    const recovered = await sdk.webhooks.recover(hook.id, new Date(Date.now() - 60_000));
    expect(recovered).toEqual({ redelivered: 0, missed: 0 });
    const badSince = await api(platform.url, user.accessToken).post(`/api/v1/webhooks/${hook.id}/recover`, {
      since: 'yesterday',
    });
    expect(badSince.status).toBe(400);
    expect(badSince.body.details).toEqual([{ field: 'since', message: expect.any(String) }]);
  });

  it('pauses and re-enables with PATCH and deletes', async () => {
    const hook = await sdk.webhooks.create({ url: receiver.url('/patch'), events: ['agent'] });
    const disabled = await sdk.webhooks.update(hook.id, { status: 'disabled', events: ['agent.created'] });
    expect(disabled).toMatchObject({ status: 'disabled', events: ['agent.created'] });
    const bad = await api(platform.url, user.accessToken).patch(`/api/v1/webhooks/${hook.id}`, { status: 'failed' });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].field).toBe('status');
    expect((await sdk.webhooks.update(hook.id, { status: 'active' })).status).toBe('active');
    expect(await sdk.webhooks.delete(hook.id)).toEqual({ success: true });
    await expect(sdk.webhooks.get(hook.id)).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });

  it('keeps tenants apart and enforces the webhook scopes', async () => {
    const hook = await sdk.webhooks.create({ url: receiver.url('/private'), events: ['*'] });
    const other = await registerUser(platform.url);
    const otherSdk = sdk.withToken(other.accessToken);
    await expect(otherSdk.webhooks.get(hook.id)).rejects.toMatchObject({ status: 404 });
    await expect(otherSdk.webhooks.listDeliveries(hook.id)).rejects.toMatchObject({ status: 404 });
    await expect(otherSdk.webhooks.test(hook.id, 'agent.created')).rejects.toMatchObject({ status: 404 });
    expect((await otherSdk.webhooks.list()).items).toEqual([]);
    await expect(sdk.webhooks.list({}, { tenantId: other.tenantId })).rejects.toMatchObject({
      status: 403,
      code: 'forbidden',
    });

    const readOnly = await createApiKey(platform.url, user.accessToken, ['webhooks:read']);
    const keySdk = sdk.withToken(readOnly.key);
    expect((await keySdk.webhooks.get(hook.id)).id).toBe(hook.id);
    await expect(keySdk.webhooks.create({ url: receiver.url(), events: ['*'] })).rejects.toMatchObject({ status: 403 });
    await expect(keySdk.webhooks.test(hook.id, 'agent.created')).rejects.toMatchObject({ status: 403 });
    await expect(sdk.withToken('nope').webhooks.list()).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
  });
});
