import { randomBytes } from 'node:crypto';
import { ConfigError, dataEncryptionKeyEnv, loadConfig } from './config';
import { SecretBox, SecretBoxError } from './secret-box';

const key = () => randomBytes(32).toString('base64');
const CONTEXT = 'webhook:wh_1:signing_secret';

/** Replaces one base64url character of a sealed value's part (0 iv, 1 ciphertext, 2 tag). */
function tamper(sealed: string, part: number): string {
  const pieces = sealed.split(':');
  const target = pieces[2 + part];
  const flipped = target[0] === 'A' ? 'B' : 'A';
  pieces[2 + part] = flipped + target.slice(1);
  return pieces.join(':');
}

describe('SecretBox', () => {
  const box = SecretBox.fromKeyring(`k1:${key()}`);

  it('seals to v1:<kid>:<iv>:<ciphertext>:<tag> and opens it again', () => {
    const sealed = box.seal('whsec_very-secret', CONTEXT);
    expect(sealed).toMatch(/^v1:k1:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+:[A-Za-z0-9_-]{22}$/);
    expect(sealed).not.toContain('very-secret');
    expect(SecretBox.isSealed(sealed)).toBe(true);
    expect(box.open(sealed, CONTEXT)).toBe('whsec_very-secret');
  });

  it('uses a fresh IV for every value', () => {
    expect(box.seal('same', CONTEXT)).not.toBe(box.seal('same', CONTEXT));
  });

  it.each([
    ['the iv', 0],
    ['the ciphertext', 1],
    ['the tag', 2],
  ])('refuses a value whose %s was altered', (_what, part) => {
    const sealed = box.seal('whsec_very-secret', CONTEXT);
    expect(() => box.open(tamper(sealed, part), CONTEXT)).toThrow(SecretBoxError);
    expect(() => box.open(tamper(sealed, part), CONTEXT)).toThrow(/altered/);
  });

  it('refuses a value moved to another record (the context is authenticated)', () => {
    const sealed = box.seal('whsec_very-secret', CONTEXT);
    expect(() => box.open(sealed, 'webhook:wh_2:signing_secret')).toThrow(/altered/);
  });

  it('refuses a value relabelled with another key id', () => {
    const two = SecretBox.fromKeyring(`k2:${key()},k1:${key()}`);
    const sealed = two.seal('x', CONTEXT);
    expect(() => two.open(sealed.replace(':k2:', ':k1:'), CONTEXT)).toThrow(SecretBoxError);
  });

  it('rotates: old values open with a retired key, new values use the current key', () => {
    const oldKey = key();
    const before = SecretBox.fromKeyring(`k1:${oldKey}`);
    const sealedBefore = before.seal('old secret', CONTEXT);
    const after = SecretBox.fromKeyring(`k2:${key()},k1:${oldKey}`);
    expect(after.currentKeyId).toBe('k2');
    expect(after.open(sealedBefore, CONTEXT)).toBe('old secret');
    expect(SecretBox.keyIdOf(sealedBefore)).toBe('k1');
    const sealedAfter = after.seal('new secret', CONTEXT);
    expect(SecretBox.keyIdOf(sealedAfter)).toBe('k2');
    // The old keyring cannot open what the new key sealed, and says which key it lacks.
    expect(() => before.open(sealedAfter, CONTEXT)).toThrow(
      /sealed with key "k2", which DATA_ENCRYPTION_KEY does not hold/,
    );
  });

  it('says clearly when the key is wrong', () => {
    const sealed = box.seal('secret', CONTEXT);
    const other = SecretBox.fromKeyring(`k1:${key()}`);
    expect(() => other.open(sealed, CONTEXT)).toThrow(/key "k1": the key is not the one it was sealed with/);
  });

  it('refuses values that are not sealed at all', () => {
    expect(SecretBox.isSealed('whsec_plain')).toBe(false);
    expect(() => box.open('whsec_plain', CONTEXT)).toThrow(/not a sealed value/);
  });

  it('accepts base64url keys and generates keyrings it can read', () => {
    const raw = randomBytes(32);
    const a = SecretBox.fromKeyring(`a:${raw.toString('base64')}`);
    const b = SecretBox.fromKeyring(`a:${raw.toString('base64url')}`);
    expect(b.open(a.seal('x', 'c'), 'c')).toBe('x');
    const generated = SecretBox.fromKeyring(SecretBox.generateKeyring('local'));
    expect(generated.currentKeyId).toBe('local');
  });

  it.each([
    ['', /at least one key/],
    ['nokid', /kid:base64key/],
    [':abc', /kid:base64key/],
    ['k1:c2hvcnQ=', /32 bytes/],
    [`k1:${key()},k1:${key()}`, /repeats the key id "k1"/],
    ['k1:!!!notbase64!!!', /32 bytes/],
  ])('rejects the keyring %j', (keyring, message) => {
    expect(() => SecretBox.fromKeyring(keyring)).toThrow(message);
  });

  it('never shows key material when serialized', () => {
    const secret = key();
    const ring = SecretBox.fromKeyring(`k1:${secret}`);
    expect(JSON.stringify({ ring })).toBe('{"ring":{"keyIds":["k1"]}}');
    expect(require('node:util').inspect(ring)).not.toContain(secret);
  });
});

describe('DATA_ENCRYPTION_KEY in a config schema', () => {
  const shape = { DATA_ENCRYPTION_KEY: dataEncryptionKeyEnv() };

  it('refuses to start without it, naming the variable', () => {
    expect(() => loadConfig(shape, {})).toThrow(ConfigError);
    expect(() => loadConfig(shape, {})).toThrow(/DATA_ENCRYPTION_KEY: is required/);
    expect(() => loadConfig(shape, { DATA_ENCRYPTION_KEY: '' })).toThrow(/DATA_ENCRYPTION_KEY: is required/);
  });

  it('names the variable when the keyring is malformed, without echoing it', () => {
    const bad = 'k1:c2hvcnQ=';
    expect(() => loadConfig(shape, { DATA_ENCRYPTION_KEY: bad })).toThrow(
      /DATA_ENCRYPTION_KEY: key "k1" must be 32 bytes/,
    );
    expect(() => loadConfig(shape, { DATA_ENCRYPTION_KEY: bad })).not.toThrow(/c2hvcnQ/);
  });

  it('parses a keyring into a box', () => {
    const config = loadConfig(shape, { DATA_ENCRYPTION_KEY: `k9:${key()}` });
    expect(config.DATA_ENCRYPTION_KEY.currentKeyId).toBe('k9');
  });
});
