import { SignJWT, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import { DomainError, createLogger } from '@agentplatform/service-kit';
import type { Backends } from './backends.js';
import { JwksCache } from './jwks-cache.js';

async function keyPair(kid: string) {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const jwk = await exportJWK(publicKey);
  return { privateKey, jwk: { kid, kty: jwk.kty!, crv: jwk.crv!, x: jwk.x!, y: '', alg: 'EdDSA', use: 'sig' } };
}

/** A stand-in for identity's GetJwks that publishes whatever keys the test says. */
function fakeIdentity(published: { jwk: unknown }[]) {
  const calls = { count: 0 };
  const identity = {
    getJwks: async () => {
      calls.count += 1;
      return { keys: published.map((p) => p.jwk), issuer: 'iss', audience: 'aud' };
    },
  } as unknown as Backends['identity'];
  return { identity, calls };
}

describe('JwksCache', () => {
  const logger = createLogger('test', 'silent');

  it('verifies tokens of a key added by a rotation after refetching once', async () => {
    const first = await keyPair('k1');
    const published = [first];
    const { identity, calls } = fakeIdentity(published);
    const cache = new JwksCache({ identity }, logger, { maxAgeMs: 600_000, cooldownMs: 0 });
    const sign = (key: typeof first) =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'EdDSA', kid: key.jwk.kid })
        .setSubject('usr_1')
        .setExpirationTime('1m')
        .sign(key.privateKey);

    await jwtVerify(await sign(first), (h) => cache.key(h.kid));
    await jwtVerify(await sign(first), (h) => cache.key(h.kid));
    expect(calls.count).toBe(1);

    const second = await keyPair('k2');
    published.push(second);
    await jwtVerify(await sign(second), (h) => cache.key(h.kid));
    expect(calls.count).toBe(2);
  });

  it('does not refetch for unknown key ids within the cool-down', async () => {
    const { identity, calls } = fakeIdentity([await keyPair('k1')]);
    const cache = new JwksCache({ identity }, logger, { maxAgeMs: 600_000, cooldownMs: 60_000 });
    await cache.settings();
    for (let i = 0; i < 5; i += 1) {
      await expect(cache.key(`forged-${i}`)).rejects.toBeInstanceOf(DomainError);
    }
    expect(calls.count).toBe(1);
  });
});
