import { randomBytes } from 'node:crypto';
import mongoose, { type Connection } from 'mongoose';
import { createLogger } from '@agentplatform/service-kit';
import { SigningKeyRepository } from '../persistence/signing-key.repository.js';
import { SigningKeyRing } from './signing-key-ring.js';

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
    await repository.init();
  });

  afterEach(async () => {
    await connection.dropDatabase();
    await connection.close();
  });

  const ring = (options: Partial<ConstructorParameters<typeof SigningKeyRing>[0]> = {}) =>
    new SigningKeyRing({ repository, logger, rotationMs: 30 * 86_400_000, graceMs: 86_400_000, ...options });

  it('gives replicas starting at once the same key', async () => {
    const replicas = [ring(), ring(), ring()];
    await Promise.all(replicas.map((r) => r.start()));
    const kids = replicas.map((r) => r.signingKey().kid);
    expect(new Set(kids).size).toBe(1);
    expect(replicas[0].publicKeys()).toEqual(replicas[2].publicKeys());
    expect(await repository.newest(10)).toHaveLength(1);
    replicas.forEach((r) => r.stop());
  });

  it('encrypts the private key at rest when a secret is set, and refuses to start without it', async () => {
    const secret = 'a-long-key-encryption-secret';
    const first = ring({ encryptionSecret: secret });
    await first.start();
    const [stored] = await repository.newest(1);
    expect(stored.private_jwk.scheme).toBe('aes-256-gcm');
    expect(stored.private_jwk.data).not.toContain('"d"');
    const restarted = ring({ encryptionSecret: secret });
    await restarted.start();
    expect(restarted.signingKey().kid).toBe(first.signingKey().kid);
    await expect(ring().start()).rejects.toThrow(/JWT_KEY_ENCRYPTION_SECRET/);
    await expect(ring({ encryptionSecret: 'another-secret-entirely' }).start()).rejects.toThrow();
    first.stop();
    restarted.stop();
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
