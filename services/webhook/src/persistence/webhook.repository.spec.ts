import { randomBytes } from 'node:crypto';
import mongoose, { type Connection } from 'mongoose';
import { buildIndexes, SecretBox } from '@agentplatform/service-kit';
import { WebhookRepository } from './webhook.repository.js';

const dataKey = () => randomBytes(32).toString('base64');
const TENANT = 'ten_secrets';

/** Runs against the MongoDB-compatible server the jest global setup starts. */
describe('WebhookRepository secrets at rest', () => {
  let connection: Connection;
  const oldKey = dataKey();
  const box = SecretBox.fromKeyring(`w1:${oldKey}`);

  beforeEach(async () => {
    connection = await mongoose
      .createConnection(process.env.MONGODB_URI!, { dbName: `webhook_repo_${randomBytes(4).toString('hex')}` })
      .asPromise();
  });

  afterEach(async () => {
    await connection.dropDatabase();
    await connection.close();
  });

  const raw = () => connection.db!.collection('webhooks');

  /** A record as releases before DATA_ENCRYPTION_KEY wrote it: secrets in plaintext. */
  async function insertLegacy(id: string, secret: string, previous?: string) {
    const now = new Date();
    await raw().insertOne({
      _id: id as never,
      tenant_id: TENANT,
      url: 'https://example.com/hook',
      events: ['*'],
      status: 'active',
      metadata: {},
      signing_secret: secret,
      previous_secrets: previous ? [{ secret: previous, expires_at: new Date(now.getTime() + 3_600_000) }] : [],
      created_at: now,
      updated_at: now,
    });
  }

  function webhook(id: string, secret: string) {
    const now = new Date();
    return {
      id,
      tenantId: TENANT,
      url: 'https://example.com/hook',
      events: ['*'],
      status: 'active' as const,
      metadata: {},
      signingSecret: secret,
      previousSecrets: [],
      createdAt: now,
      updatedAt: now,
    };
  }

  it('stores only ciphertext, bound to its webhook, and reads the plain secret back', async () => {
    const repo = new WebhookRepository(connection, box);
    await buildIndexes(connection);
    await repo.create(webhook('wh_a', 'whsec_plain_secret_a_1234567890'));
    await repo.rotateSecret(TENANT, 'wh_a', 'whsec_plain_secret_b_1234567890', [
      { secret: 'whsec_plain_secret_a_1234567890', expires_at: new Date(Date.now() + 60_000) },
    ]);
    const stored = await raw().findOne({ _id: 'wh_a' as never });
    expect(JSON.stringify(stored)).not.toContain('plain_secret');
    expect(stored).toMatchObject({ secret_key_id: 'w1', signing_secret_sealed: expect.stringMatching(/^v1:w1:/) });
    expect(stored!.signing_secret).toBeUndefined();
    const read = await repo.find(TENANT, 'wh_a');
    expect(read!.signingSecret).toBe('whsec_plain_secret_b_1234567890');
    expect(read!.previousSecrets.map((p) => p.secret)).toEqual(['whsec_plain_secret_a_1234567890']);

    // A sealed secret copied onto another webhook does not open there.
    await repo.create(webhook('wh_b', 'whsec_other_secret_1234567890'));
    await raw().updateOne({ _id: 'wh_b' as never }, { $set: { signing_secret_sealed: stored!.signing_secret_sealed } });
    await expect(repo.find(TENANT, 'wh_b')).rejects.toThrow(/altered/);
  });

  it('re-seals plaintext records once, even with several replicas at it together', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `wh_legacy_${i}`);
    for (const id of ids) await insertLegacy(id, `legacy-secret-${id}`, `previous-secret-${id}`);
    // A legacy record is readable before it is migrated.
    const replicas = [new WebhookRepository(connection, box), new WebhookRepository(connection, box)];
    // As a service does before it re-seals (the stand-in fails a write that races an index build).
    await buildIndexes(connection);
    expect((await replicas[0].find(TENANT, ids[0]))!.signingSecret).toBe(`legacy-secret-${ids[0]}`);

    const counts = await Promise.all(replicas.map((r) => r.resealSecrets()));
    expect(counts[0] + counts[1]).toBe(ids.length);
    expect(await replicas[0].resealSecrets()).toBe(0);

    const stored = await raw().find({}).toArray();
    expect(JSON.stringify(stored)).not.toMatch(/legacy-secret|previous-secret/);
    expect(stored.every((r) => r.secret_key_id === 'w1' && r.signing_secret === undefined)).toBe(true);
    const read = await replicas[1].find(TENANT, ids[7]);
    expect(read!.signingSecret).toBe(`legacy-secret-${ids[7]}`);
    expect(read!.previousSecrets.map((p) => p.secret)).toEqual([`previous-secret-${ids[7]}`]);
  });

  it('re-seals under the new current key after DATA_ENCRYPTION_KEY is rotated', async () => {
    const before = new WebhookRepository(connection, box);
    await before.create(webhook('wh_rot', 'whsec_rotation_secret_1234567890'));
    const newKey = dataKey();
    const after = new WebhookRepository(connection, SecretBox.fromKeyring(`w2:${newKey},w1:${oldKey}`));
    // Readable under the retired key before the re-sealing, then sealed with the current one.
    expect((await after.find(TENANT, 'wh_rot'))!.signingSecret).toBe('whsec_rotation_secret_1234567890');
    expect(await after.resealSecrets()).toBe(1);
    expect(await raw().findOne({ _id: 'wh_rot' as never })).toMatchObject({
      secret_key_id: 'w2',
      signing_secret_sealed: expect.stringMatching(/^v1:w2:/),
    });
    const withoutOld = new WebhookRepository(connection, SecretBox.fromKeyring(`w2:${newKey}`));
    expect((await withoutOld.find(TENANT, 'wh_rot'))!.signingSecret).toBe('whsec_rotation_secret_1234567890');
    // A keyring whose current key has the right id but other bytes stops the start, naming the record.
    const wrong = new WebhookRepository(connection, SecretBox.fromKeyring(`w2:${dataKey()}`));
    await expect(wrong.resealSecrets()).rejects.toThrow(/webhook wh_rot: cannot open a value sealed with key "w2"/);
    // So does one that lacks the key the records were sealed with.
    const missing = new WebhookRepository(connection, SecretBox.fromKeyring(`w3:${dataKey()}`));
    await expect(missing.resealSecrets()).rejects.toThrow(
      /webhook wh_rot: .*"w2", which DATA_ENCRYPTION_KEY does not hold/,
    );
  });
});
