import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, jwtVerify, SignJWT, type KeyLike } from 'jose';
import mongoose, { type Connection } from 'mongoose';
import { buildIndexes, createLogger, SecretBox } from '@agentplatform/service-kit';
import { SigningKeyRepository } from '../persistence/signing-key.repository.js';
import { SigningKeyRing } from './signing-key-ring.js';

const dataKey = () => randomBytes(32).toString('base64');

/** Runs against the MongoDB-compatible server the jest global setup starts. */
describe('SigningKeyRing', () => {
  const logger = createLogger('test', 'silent');
  let connection: Connection;
  let repository: SigningKeyRepository;

  beforeEach(async () => {
    connection = await mongoose
      .createConnection(process.env.MONGODB_URI!, { dbName: `signing_${randomBytes(4).toString('hex')}` })
      .asPromise();
    repository = new SigningKeyRepository(connection);
    await buildIndexes(connection);
  });

  afterEach(async () => {
    await connection.dropDatabase();
    await connection.close();
  });

  const box = SecretBox.fromKeyring(`d1:${dataKey()}`);
  const ring = (options: Partial<ConstructorParameters<typeof SigningKeyRing>[0]> = {}) =>
    new SigningKeyRing({ repository, logger, box, rotationMs: 30 * 86_400_000, graceMs: 86_400_000, ...options });

  /** A key pair stored the way releases before DATA_ENCRYPTION_KEY did: plaintext, or under JWT_KEY_ENCRYPTION_SECRET. */
  async function storeLegacyKey(generation: number, legacySecret?: string) {
    const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    const publicJwk = await exportJWK(publicKey);
    const plain = JSON.stringify(await exportJWK(privateKey));
    const kid = `sk_legacy_${generation}`;
    let privateJwk: { scheme: 'aes-256-gcm' | 'none'; data: string; iv?: string; tag?: string } = {
      scheme: 'none',
      data: plain,
    };
    if (legacySecret) {
      const kek = Buffer.from(hkdfSync('sha256', legacySecret, 'agentplatform', 'jwt-signing-key', 32));
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', kek, iv);
      cipher.setAAD(Buffer.from(kid));
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      privateJwk = {
        scheme: 'aes-256-gcm',
        data: data.toString('base64'),
        iv: iv.toString('base64'),
        tag: cipher.getAuthTag().toString('base64'),
      };
    }
    await repository.insert({
      _id: kid,
      generation,
      alg: 'EdDSA',
      public_jwk: { kty: publicJwk.kty!, crv: publicJwk.crv!, x: publicJwk.x! },
      private_jwk: privateJwk,
      created_at: new Date(),
    });
    return { kid, publicKey };
  }

  /** Proves the ring signs with the private half of `publicKey`. */
  async function signsFor(keys: SigningKeyRing, publicKey: KeyLike) {
    const { privateKey } = keys.signingKey();
    const token = await new SignJWT({}).setProtectedHeader({ alg: 'EdDSA' }).sign(privateKey);
    await expect(jwtVerify(token, publicKey)).resolves.toBeDefined();
  }

  it('gives replicas starting at once the same key', async () => {
    const replicas = [ring(), ring(), ring()];
    await Promise.all(replicas.map((r) => r.start()));
    const kids = replicas.map((r) => r.signingKey().kid);
    expect(new Set(kids).size).toBe(1);
    expect(replicas[0].publicKeys()).toEqual(replicas[2].publicKeys());
    expect(await repository.newest(10)).toHaveLength(1);
    replicas.forEach((r) => r.stop());
  });

  it('seals the private key with DATA_ENCRYPTION_KEY and cannot start with another key', async () => {
    const first = ring();
    await first.start();
    const [stored] = await repository.newest(1);
    expect(stored.private_jwk).toMatchObject({ scheme: 'secret-box', key_id: 'd1' });
    expect(SecretBox.isSealed(stored.private_jwk.data)).toBe(true);
    expect(stored.private_jwk.data).not.toContain('"d"');
    const restarted = ring();
    await restarted.start();
    expect(restarted.signingKey().kid).toBe(first.signingKey().kid);
    const wrong = SecretBox.fromKeyring(`d1:${dataKey()}`);
    await expect(ring({ box: wrong }).start()).rejects.toThrow(/sealed with key "d1": the key is not the one/);
    first.stop();
    restarted.stop();
  });

  it('re-seals keys stored unencrypted or under JWT_KEY_ENCRYPTION_SECRET, once, and keeps signing with them', async () => {
    const legacySecret = 'a-long-key-encryption-secret';
    const plain = await storeLegacyKey(1);
    const underSecret = await storeLegacyKey(2, legacySecret);
    await expect(ring().start()).rejects.toThrow(/retired JWT_KEY_ENCRYPTION_SECRET/);
    // Two replicas upgrading together: both start, each record is rewritten once.
    const replicas = [ring({ legacySecret }), ring({ legacySecret })];
    await Promise.all(replicas.map((r) => r.start()));
    const stored = await repository.newest(10);
    expect(stored.map((k) => [k._id, k.private_jwk.scheme, k.private_jwk.key_id])).toEqual([
      [underSecret.kid, 'secret-box', 'd1'],
      [plain.kid, 'secret-box', 'd1'],
    ]);
    expect(JSON.stringify(stored)).not.toContain('"d"');
    expect(replicas[0].signingKey().kid).toBe(underSecret.kid);
    await signsFor(replicas[1], underSecret.publicKey);
    // Migrated: the retired secret is no longer needed.
    const later = ring();
    await later.start();
    await signsFor(later, underSecret.publicKey);
    [...replicas, later].forEach((r) => r.stop());
  });

  it('re-seals under the new current data key after a rotation of DATA_ENCRYPTION_KEY', async () => {
    const oldKey = dataKey();
    const before = ring({ box: SecretBox.fromKeyring(`d1:${oldKey}`) });
    await before.start();
    const newKey = dataKey();
    const after = ring({ box: SecretBox.fromKeyring(`d2:${newKey},d1:${oldKey}`) });
    await after.start();
    const [stored] = await repository.newest(1);
    expect(stored.private_jwk.key_id).toBe('d2');
    expect(after.signingKey().kid).toBe(before.signingKey().kid);
    // The retired key can now leave the keyring.
    const withoutOld = ring({ box: SecretBox.fromKeyring(`d2:${newKey}`) });
    await withoutOld.start();
    expect(withoutOld.signingKey().kid).toBe(before.signingKey().kid);
    [before, after, withoutOld].forEach((r) => r.stop());
  });

  it('rotates to a new key and keeps the old one published for the grace period', async () => {
    const keys = ring({ graceMs: 60_000 });
    await keys.start();
    const old = keys.signingKey().kid;
    await keys.rotate();
    const current = keys.signingKey().kid;
    expect(current).not.toBe(old);
    expect(keys.publicKeys().map((k) => k.kid)).toEqual([current, old]);
    expect(keys.publicKeys(new Date(Date.now() + 120_000)).map((k) => k.kid)).toEqual([current]);
    expect(keys.publicKeys()[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    keys.stop();
  });

  it('rotates on start when the newest key is older than the rotation period', async () => {
    const first = ring();
    await first.start();
    const aged = ring({ rotationMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    await aged.start();
    expect(aged.signingKey().kid).not.toBe(first.signingKey().kid);
    first.stop();
    aged.stop();
  });

  it('announces a key that left the JWKS once, whichever replica notices it first', async () => {
    const announced: string[] = [];
    const onWithdrawn = async (kid: string) => {
      if (await repository.markWithdrawn(kid, new Date())) announced.push(kid);
    };
    const replicas = [
      ring({ graceMs: 50, reloadMs: 20, onWithdrawn }),
      ring({ graceMs: 50, reloadMs: 20, onWithdrawn }),
    ];
    await Promise.all(replicas.map((r) => r.start()));
    const old = replicas[0].signingKey().kid;
    await replicas[0].rotate();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(announced).toEqual([old]);
    expect(replicas[1].publicKeys().map((k) => k.kid)).not.toContain(old);
    replicas.forEach((r) => r.stop());
  });
});
