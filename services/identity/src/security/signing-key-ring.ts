import { createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type JWK, type KeyLike } from 'jose';
import { isDuplicateKeyError, type Logger, type SecretBox } from '@agentplatform/service-kit';
import type { SigningKeyDocument, SigningKeyRepository } from '../persistence/signing-key.repository.js';

export const SIGNING_ALG = 'EdDSA';

export interface SigningKey {
  kid: string;
  privateKey: KeyLike | Uint8Array;
}

export interface PublicJwk {
  kid: string;
  kty: string;
  crv: string;
  x: string;
  y?: string;
  alg: string;
  use: string;
}

export interface KeyRingOptions {
  repository: SigningKeyRepository;
  logger: Logger;
  /** Seals the private keys at rest (DATA_ENCRYPTION_KEY). */
  box: SecretBox;
  /**
   * The retired JWT_KEY_ENCRYPTION_SECRET: opens keys an older release stored under it, so they
   * can be sealed with the box instead.
   */
  legacySecret?: string;
  rotationMs: number;
  graceMs: number;
  /** How often a replica re-reads the keys, to pick up a rotation made by another replica. */
  reloadMs?: number;
  /**
   * Called for a key that has left the JWKS and was not announced yet, so the gateways stop
   * trusting it at once instead of when their JWKS cache expires. Must mark it (once) itself.
   */
  onWithdrawn?: (kid: string) => Promise<void>;
}

/**
 * The JWT signing keys (Ed25519), stored in identity's database so every replica signs with the
 * same key and publishes the same JWKS. The first replica to start creates generation 1; a key
 * older than the rotation period is replaced by the next generation, and replaced keys stay in
 * the JWKS for a grace period so the tokens they signed keep verifying.
 */
export class SigningKeyRing {
  private keys: SigningKeyDocument[] = [];
  private current?: SigningKey;
  private timer?: NodeJS.Timeout;
  private readonly kek?: Buffer;

  constructor(private readonly options: KeyRingOptions) {
    if (options.legacySecret) {
      this.kek = Buffer.from(hkdfSync('sha256', options.legacySecret, 'agentplatform', 'jwt-signing-key', 32));
    }
  }

  async start(): Promise<void> {
    await this.reseal();
    await this.load();
    if (this.keys.length === 0) await this.createGeneration(1);
    await this.rotateIfDue();
    this.timer = setInterval(() => {
      this.load()
        .then(() => this.rotateIfDue())
        .then(() => this.announceWithdrawals())
        .catch((error) => this.options.logger.warn({ err: error }, 'cannot reload signing keys'));
    }, this.options.reloadMs ?? 60_000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  signingKey(): SigningKey {
    if (!this.current) throw new Error('signing keys are not loaded');
    return this.current;
  }

  /** The newest key and every key replaced less than the grace period ago. */
  publicKeys(now = new Date()): PublicJwk[] {
    const published: PublicJwk[] = [];
    this.keys.forEach((key, index) => {
      if (!this.isPublished(index, now)) return;
      const jwk = key.public_jwk;
      published.push({ kid: key._id, kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, alg: key.alg, use: 'sig' });
    });
    return published;
  }

  private isPublished(index: number, now: Date): boolean {
    const key = this.keys[index];
    const successor = index > 0 ? this.keys[index - 1] : undefined;
    if (!successor) return true;
    return !key.withdrawn_at && now.getTime() - successor.created_at.getTime() <= this.options.graceMs;
  }

  /** Announces every key that has left the JWKS since the last look (one replica wins each). */
  private async announceWithdrawals(): Promise<void> {
    const onWithdrawn = this.options.onWithdrawn;
    if (!onWithdrawn) return;
    const now = new Date();
    for (const [index, key] of this.keys.entries()) {
      if (!key.withdrawn_at && !this.isPublished(index, now)) await onWithdrawn(key._id);
    }
  }

  /** Makes the next generation now (operators can force a rotation; the timer does it on age). */
  async rotate(): Promise<void> {
    await this.createGeneration((this.keys[0]?.generation ?? 0) + 1);
  }

  /**
   * Seals with the box's current key every private key stored otherwise: unencrypted or under the
   * retired secret (older releases), or under a data key rotated out since. Each write is
   * conditional on the value it replaces, so replicas starting together neither clash nor redo it.
   */
  private async reseal(): Promise<void> {
    const stale = await this.options.repository.notSealedWith(this.options.box.currentKeyId);
    for (const record of stale) {
      const sealed = this.encrypt(record._id, this.decrypt(record));
      if (await this.options.repository.replacePrivateKey(record._id, record.private_jwk.data, sealed)) {
        this.options.logger.info({ kid: record._id, from: record.private_jwk.scheme }, 're-encrypted signing key');
      }
    }
  }

  private async rotateIfDue(): Promise<void> {
    const newest = this.keys[0];
    if (newest && Date.now() - newest.created_at.getTime() > this.options.rotationMs) {
      this.options.logger.info({ kid: newest._id }, 'signing key is due for rotation');
      await this.rotate();
    }
  }

  private async load(): Promise<void> {
    const keys = await this.options.repository.newest(20);
    if (keys.length > 0 && keys[0]._id !== this.current?.kid) {
      this.current = { kid: keys[0]._id, privateKey: await importJWK(this.decrypt(keys[0]), SIGNING_ALG) };
    }
    this.keys = keys;
  }

  private async createGeneration(generation: number): Promise<void> {
    const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { crv: 'Ed25519', extractable: true });
    const publicJwk = await exportJWK(publicKey);
    const privateJwk = await exportJWK(privateKey);
    const kid = `sk_${Date.now().toString(36)}_${randomBytes(6).toString('hex')}`;
    try {
      await this.options.repository.insert({
        _id: kid,
        generation,
        alg: SIGNING_ALG,
        public_jwk: { kty: publicJwk.kty!, crv: publicJwk.crv!, x: publicJwk.x! },
        private_jwk: this.encrypt(kid, privateJwk),
        created_at: new Date(),
      });
      this.options.logger.info({ kid, generation }, 'created signing key');
    } catch (error) {
      // Another replica created this generation first: use theirs.
      if (!isDuplicateKeyError(error)) throw error;
    }
    await this.load();
  }

  private encrypt(kid: string, jwk: JWK): SigningKeyDocument['private_jwk'] {
    const box = this.options.box;
    return { scheme: 'secret-box', key_id: box.currentKeyId, data: box.seal(JSON.stringify(jwk), sealContext(kid)) };
  }

  private decrypt(record: SigningKeyDocument): JWK {
    const stored = record.private_jwk;
    if (stored.scheme === 'secret-box')
      return JSON.parse(this.options.box.open(stored.data, sealContext(record._id))) as JWK;
    if (stored.scheme === 'none') return JSON.parse(stored.data) as JWK;
    if (!this.kek) {
      throw new Error(
        `signing key ${record._id} is encrypted with the retired JWT_KEY_ENCRYPTION_SECRET: set it for one start so identity can re-encrypt the key under DATA_ENCRYPTION_KEY`,
      );
    }
    const decipher = createDecipheriv('aes-256-gcm', this.kek, Buffer.from(stored.iv!, 'base64'));
    decipher.setAAD(Buffer.from(record._id));
    decipher.setAuthTag(Buffer.from(stored.tag!, 'base64'));
    const plain = Buffer.concat([decipher.update(Buffer.from(stored.data, 'base64')), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as JWK;
  }
}

/** What a sealed private key is bound to: its own key id, so it cannot be swapped onto another record. */
function sealContext(kid: string): string {
  return `signing_key:${kid}:private_jwk`;
}
