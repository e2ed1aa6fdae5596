import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import mongoose from 'mongoose';
import { verifyWebhookSignature } from '@agentplatform/sdk';
import {
  api,
  createApiKey,
  Receiver,
  registerUser,
  REPO_ROOT,
  startPlatform,
  suiteFixture,
  waitFor,
  type RegisteredUser,
} from '@agentplatform/testing';

type MongoClient = InstanceType<typeof mongoose.mongo.MongoClient>;

/**
 * Per-caller Idempotency-Key records and secrets at rest (docs/design.md sections 3 and 8), through
 * the real gateway, identity and webhook processes; what is stored is read straight from MongoDB
 * with the driver, byte for byte.
 */
describe('secrets at rest and per-caller idempotency', () => {
  const platform = suiteFixture(() => startPlatform({ services: ['identity', 'webhook'] }));
  const receiver = suiteFixture(() => Receiver.start());
  let user: RegisteredUser;
  let mongo: MongoClient;

  beforeAll(async () => {
    user = await registerUser(platform.url);
    mongo = await new mongoose.mongo.MongoClient(platform.mongoUri).connect();
  });

  afterAll(async () => {
    await mongo?.close();
  });

  const gatewayDb = () => mongo.db(platform.gatewayDatabase);
  const webhookDb = () => mongo.db(platform.database('webhook'));

  /** Every stored byte of a collection, as the server returns it (raw BSON documents). */
  async function storedBytes(db: ReturnType<MongoClient['db']>, collection: string): Promise<Buffer> {
    const docs = await db.collection(collection).find({}, { raw: true }).toArray();
    return Buffer.concat(docs as unknown as Buffer[]);
  }

  /** Sends a sample event through the gateway's test endpoint and returns what the receiver got. */
  async function testSend(token: string, webhookId: string, path: string) {
    const before = receiver.to(path).length;
    const sent = await waitFor(
      async () => {
        const res = await api(platform.url, token).post(`/api/v1/webhooks/${webhookId}/test`, {
          event_type: 'agent.created',
        });
        return res.status === 200 ? res : undefined;
      },
      { what: 'a test send', timeoutMs: 30_000 },
    );
    expect(sent.body).toMatchObject({ success: true, response_status: 200 });
    const requests = await receiver.waitForRequests(before + 1, { path });
    return requests[before];
  }

  it('gives another caller of the tenant its own resource for the same key and replays each caller its own secret', async () => {
    const keyA = await createApiKey(platform.url, user.accessToken, ['webhooks:read', 'webhooks:write'], 'a');
    const keyB = await createApiKey(platform.url, user.accessToken, ['webhooks:read', 'webhooks:write'], 'b');
    const body = { url: receiver.url('/idem'), events: ['agent.created'] };
    const headers = { 'idempotency-key': 'create-hook-0001' };
    const post = (token: string) => api(platform.url, token).post('/api/v1/webhooks', body, { headers });

    const byUser = await post(user.accessToken);
    const byKeyA = await post(keyA.key);
    const byKeyB = await post(keyB.key);
    for (const res of [byUser, byKeyA, byKeyB]) {
      expect(res.status).toBe(201);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
    }
    const ids = [byUser.body.id, byKeyA.body.id, byKeyB.body.id];
    expect(new Set(ids).size).toBe(3);
    const secrets = [byUser.body.signing_secret, byKeyA.body.signing_secret, byKeyB.body.signing_secret];
    expect(new Set(secrets).size).toBe(3);

    // Each caller's retry replays its own response, secret included.
    const replayUser = await post(user.accessToken);
    expect(replayUser.status).toBe(201);
    expect(replayUser.headers.get('idempotent-replayed')).toBe('true');
    expect(replayUser.body).toEqual(byUser.body);
    const replayA = await post(keyA.key);
    expect(replayA.body).toEqual(byKeyA.body);
    expect(replayA.body.signing_secret).toBe(byKeyA.body.signing_secret);

    const listed = await api(platform.url, user.accessToken).get('/api/v1/webhooks?per_page=100');
    const listedIds = (listed.body.items as Array<{ id: string }>).map((w) => w.id);
    expect(listedIds).toEqual(expect.arrayContaining(ids));
    expect(listedIds.filter((id) => ids.includes(id))).toHaveLength(3);

    // Stored per caller, and not one secret in the stored bytes.
    const records = await gatewayDb()
      .collection<{ _id: string; body_sealed?: string }>('idempotency_keys')
      .find({ _id: { $in: [user.userId, keyA.id, keyB.id].map((c) => `${user.tenantId}:${c}:create-hook-0001`) } })
      .toArray();
    expect(records).toHaveLength(3);
    for (const record of records) {
      expect(record.body_sealed).toMatch(/^v1:test:/);
      expect(record).not.toHaveProperty('body');
    }
    const bytes = await storedBytes(gatewayDb(), 'idempotency_keys');
    for (const secret of secrets) expect(bytes.includes(secret)).toBe(false);
  });

  it('replays a new API key to its creator and never stores the key in plaintext', async () => {
    const headers = { 'idempotency-key': 'new-api-key-0001' };
    const body = { name: 'ci', scopes: ['webhooks:read'] };
    const client = api(platform.url, user.accessToken);
    const first = await client.post('/api/v1/auth/api-keys', body, { headers });
    expect(first.status).toBe(201);
    expect(first.body.key).toMatch(/^apk_/);
    const retry = await client.post('/api/v1/auth/api-keys', body, { headers });
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.key).toBe(first.body.key);
    expect((await api(platform.url, first.body.key).get('/api/v1/webhooks')).status).toBe(200);

    const bytes = await storedBytes(gatewayDb(), 'idempotency_keys');
    expect(bytes.includes(first.body.key)).toBe(false);
    // Not even the secret part after the displayed prefix.
    expect(bytes.includes(first.body.key.slice(12))).toBe(false);
  });

  it('stores signing secrets as ciphertext; deliveries verify, with the rotated-out secret too', async () => {
    const created = await api(platform.url, user.accessToken).post('/api/v1/webhooks', {
      url: receiver.url('/sealed'),
      events: ['agent.created'],
    });
    expect(created.status).toBe(201);
    const first = created.body.signing_secret as string;
    const record = await webhookDb().collection('webhooks').findOne({ _id: created.body.id });
    expect(record).toMatchObject({ secret_key_id: 'test', signing_secret_sealed: expect.stringMatching(/^v1:test:/) });
    expect(record).not.toHaveProperty('signing_secret');
    expect((await storedBytes(webhookDb(), 'webhooks')).includes(first)).toBe(false);

    const delivered = await testSend(user.accessToken, created.body.id, '/sealed');
    expect(verifyWebhookSignature(delivered.body, delivered.headers['x-service-signature'], first)).toBe(true);

    const rotated = await api(platform.url, user.accessToken).post(
      `/api/v1/webhooks/${created.body.id}/rotate-secret`,
      {},
    );
    expect(rotated.status).toBe(200);
    const second = rotated.body.signing_secret as string;
    const bytes = await storedBytes(webhookDb(), 'webhooks');
    expect(bytes.includes(first)).toBe(false);
    expect(bytes.includes(second)).toBe(false);

    const afterRotation = await testSend(user.accessToken, created.body.id, '/sealed');
    const header = afterRotation.headers['x-service-signature'];
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(verifyWebhookSignature(afterRotation.body, header, second)).toBe(true);
    expect(verifyWebhookSignature(afterRotation.body, header, first)).toBe(true);
    expect(verifyWebhookSignature(afterRotation.body, header, 'whsec_someone-else-entirely')).toBe(false);
  });

  it('encrypts a plaintext secret stored the old way when the webhook service starts, and keeps signing with it', async () => {
    const id = `wh_legacy${randomBytes(6).toString('hex')}`;
    const secret = `legacy-plaintext-${randomBytes(12).toString('hex')}`;
    const previous = `legacy-previous-${randomBytes(12).toString('hex')}`;
    const now = new Date();
    // A record as releases before DATA_ENCRYPTION_KEY wrote it.
    await webhookDb()
      .collection('webhooks')
      .insertOne({
        _id: id as never,
        tenant_id: user.tenantId,
        url: receiver.url('/legacy'),
        events: ['*'],
        status: 'active',
        metadata: {},
        signing_secret: secret,
        previous_secrets: [{ secret: previous, expires_at: new Date(now.getTime() + 3_600_000) }],
        created_at: now,
        updated_at: now,
      });
    expect((await storedBytes(webhookDb(), 'webhooks')).includes(secret)).toBe(true);

    const webhook = platform.service('webhook');
    await webhook.stop();
    await webhook.start();

    const record = await webhookDb()
      .collection('webhooks')
      .findOne({ _id: id as never });
    expect(record).toMatchObject({ secret_key_id: 'test', signing_secret_sealed: expect.stringMatching(/^v1:test:/) });
    expect(record).not.toHaveProperty('signing_secret');
    const bytes = await storedBytes(webhookDb(), 'webhooks');
    expect(bytes.includes(secret)).toBe(false);
    expect(bytes.includes(previous)).toBe(false);

    const delivered = await testSend(user.accessToken, id, '/legacy');
    const header = delivered.headers['x-service-signature'];
    expect(verifyWebhookSignature(delivered.body, header, secret)).toBe(true);
    expect(verifyWebhookSignature(delivered.body, header, previous)).toBe(true);
  });

  it.each(['gateway', 'identity', 'webhook'])(
    'a production %s without DATA_ENCRYPTION_KEY refuses to start, naming the variable',
    (name) => {
      const started = spawnSync(process.execPath, [path.join(REPO_ROOT, 'services', name, 'dist', 'main.js')], {
        env: { ...process.env, NODE_ENV: 'production', DATA_ENCRYPTION_KEY: '', MONGODB_URI: platform.mongoUri },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(started.status).toBe(1);
      expect(started.stderr).toContain('DATA_ENCRYPTION_KEY: is required');
    },
  );
});
