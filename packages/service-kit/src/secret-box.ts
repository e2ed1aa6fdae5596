import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Secrets at rest (docs/design.md section 8): AES-256-GCM under the `DATA_ENCRYPTION_KEY` keyring.
 *
 * Keyring: `kid:base64key[,kid:base64key...]`, each key 32 random bytes in base64 (or base64url);
 * the first entry is the current key and seals every new value, the later ones only open values
 * sealed before a rotation. A sealed value is `v1:<kid>:<iv>:<ciphertext>:<tag>` (base64url), so
 * it names the key that opens it. The version, the key id and a caller-chosen context (what the
 * value belongs to, e.g. `webhook:wh_123:signing_secret`) are the GCM additional data: a value
 * copied onto another record, or given another key id, does not open.
 */

const VERSION = 'v1';
const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const KID = /^[A-Za-z0-9_-]{1,32}$/;
const SEALED = /^v1:([A-Za-z0-9_-]{1,32}):([A-Za-z0-9_-]{16}):([A-Za-z0-9_-]*):([A-Za-z0-9_-]{22})$/;
const BASE64 = /^(?:[A-Za-z0-9+/]+={0,2}|[A-Za-z0-9_-]+)$/;

/** A value that cannot be sealed or opened; the message never contains key material or plaintext. */
export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

export class SecretBox {
  /** Key material lives in a private field so it is never enumerated, serialized or logged. */
  readonly #keys: ReadonlyMap<string, Buffer>;
  /** The key id new values are sealed with. */
  readonly currentKeyId: string;

  private constructor(keys: Map<string, Buffer>, currentKeyId: string) {
    this.#keys = keys;
    this.currentKeyId = currentKeyId;
  }

  /** Parses a `DATA_ENCRYPTION_KEY` keyring; throws a SecretBoxError naming what is wrong. */
  static fromKeyring(keyring: string): SecretBox {
    const keys = new Map<string, Buffer>();
    const entries = keyring
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    if (entries.length === 0) throw new SecretBoxError('must hold at least one key as kid:base64key');
    entries.forEach((entry, index) => {
      const colon = entry.indexOf(':');
      const kid = colon > 0 ? entry.slice(0, colon) : '';
      const encoded = colon > 0 ? entry.slice(colon + 1) : '';
      const where = `entry ${index + 1}`;
      if (!KID.test(kid)) {
        throw new SecretBoxError(`${where} must be kid:base64key with a kid of 1 to 32 characters [A-Za-z0-9_-]`);
      }
      if (keys.has(kid)) throw new SecretBoxError(`${where} repeats the key id "${kid}"`);
      // Node's base64 decoder reads both alphabets; the pattern rejects what it would skip silently.
      const key = BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : undefined;
      if (!key || key.length !== KEY_BYTES) {
        throw new SecretBoxError(`key "${kid}" must be ${KEY_BYTES} bytes in base64 (openssl rand -base64 32)`);
      }
      keys.set(kid, key);
    });
    return new SecretBox(keys, entries[0].slice(0, entries[0].indexOf(':')));
  }

  /** A keyring of one new random key, in the `DATA_ENCRYPTION_KEY` format. */
  static generateKeyring(kid = `k${new Date().toISOString().slice(0, 10).replace(/-/g, '')}`): string {
    if (!KID.test(kid)) throw new SecretBoxError('a key id is 1 to 32 characters [A-Za-z0-9_-]');
    return `${kid}:${randomBytes(KEY_BYTES).toString('base64')}`;
  }

  /** Whether a stored value has the sealed format (it may still fail to open). */
  static isSealed(value: unknown): value is string {
    return typeof value === 'string' && SEALED.test(value);
  }

  /** The key id a sealed value names, or undefined when the value is not sealed. */
  static keyIdOf(value: string): string | undefined {
    return SEALED.exec(value)?.[1];
  }

  /** The key ids this box can open, current first. */
  get keyIds(): string[] {
    return [...this.#keys.keys()];
  }

  seal(plaintext: string, context: string): string {
    const kid = this.currentKeyId;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.#keys.get(kid)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(additionalData(kid, context));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [
      VERSION,
      kid,
      iv.toString('base64url'),
      ciphertext.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
    ].join(':');
  }

  open(sealed: string, context: string): string {
    const parts = SEALED.exec(sealed);
    if (!parts) throw new SecretBoxError('the stored value is not a sealed value (v1:<kid>:<iv>:<ciphertext>:<tag>)');
    const [, kid, iv, ciphertext, tag] = parts;
    const key = this.#keys.get(kid);
    if (!key) {
      throw new SecretBoxError(
        `the value was sealed with key "${kid}", which DATA_ENCRYPTION_KEY does not hold (keep retired keys after the current one)`,
      );
    }
    try {
      const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
      decipher.setAAD(additionalData(kid, context));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError(
        `cannot open a value sealed with key "${kid}": the key is not the one it was sealed with, or the value was altered`,
      );
    }
  }

  toJSON(): { keyIds: string[] } {
    return { keyIds: this.keyIds };
  }
}

function additionalData(kid: string, context: string): Buffer {
  return Buffer.from(`${VERSION}:${kid}:${context}`, 'utf8');
}
