import type { identityV1 } from '@agentplatform/contracts';
import { createAccessEvent } from '@agentplatform/events/catalogue';
import type { Context } from 'koa';
import { UnauthorizedError } from '@agentplatform/service-kit';
import { IdentityAccessGuard, type AccessGuardOptions } from './access-guard.js';
import { AnonymousLimiter } from './anonymous-limit.js';
import { anyCaller, type Caller } from './route.js';

/** A fake of identity's GetMe that counts its calls and answers with the current name. */
function fakeIdentity() {
  const state = { calls: 0, name: 'Alice' };
  const identity = {
    getMe: async ({ userId }: { userId: string }): Promise<identityV1.GetMeResponse> => {
      state.calls += 1;
      return {
        user: { id: userId, email: 'a@example.com', fullName: state.name, isActive: true, createdAt: '' },
        tenants: [{ id: 'ten_1', name: 'Acme', role: 'owner' }],
      };
    },
  };
  return { state, identity };
}

function guardWith(identity: unknown, ttlMs = 60_000): IdentityAccessGuard {
  // Only the profile cache is exercised here: the other collaborators are never called.
  return new IdentityAccessGuard({
    backends: { identity },
    jwks: {},
    limiter: {},
    cacheTtlMs: ttlMs,
  } as unknown as AccessGuardOptions);
}

const alice: Caller = {
  kind: 'user',
  userId: 'usr_1',
  tenantId: 'ten_1',
  role: 'owner',
  scopes: [],
  sessionId: 'ses_1',
};

describe('IdentityAccessGuard profiles (GET /auth/me)', () => {
  it('asks identity once per user and cache lifetime', async () => {
    const { state, identity } = fakeIdentity();
    const guard = guardWith(identity);
    const answers = await Promise.all([guard.profile(alice), guard.profile(alice), guard.profile(alice)]);
    await guard.profile(alice);
    expect(state.calls).toBe(1);
    expect(answers.map((a) => a.user!.fullName)).toEqual(['Alice', 'Alice', 'Alice']);
  });

  it("drops a user's profile when one of their sessions is revoked, here or on another replica", async () => {
    const { state, identity } = fakeIdentity();
    const guard = guardWith(identity);
    await guard.profile(alice);
    state.name = 'Alice B.';
    guard.revoke(
      createAccessEvent('access.session.revoked', '', { session_id: 'ses_9', user_id: 'usr_1', reason: 'logout' }),
    );
    expect((await guard.profile(alice)).user!.fullName).toBe('Alice B.');
    expect(state.calls).toBe(2);
    // Another user's revocation leaves it alone.
    guard.revoke(
      createAccessEvent('access.session.revoked', '', { session_id: 'ses_8', user_id: 'usr_2', reason: 'logout' }),
    );
    await guard.profile(alice);
    expect(state.calls).toBe(2);
  });

  it('keeps nothing while the revocation feed is not live', async () => {
    const { state, identity } = fakeIdentity();
    const guard = guardWith(identity);
    guard.setLive(false);
    await guard.profile(alice);
    await guard.profile(alice);
    expect(state.calls).toBe(2);
    guard.setLive(true);
    await guard.profile(alice);
    await guard.profile(alice);
    expect(state.calls).toBe(3);
  });

  it('expires with the other credential caches', async () => {
    const { state, identity } = fakeIdentity();
    const guard = guardWith(identity, 30);
    await guard.profile(alice);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await guard.profile(alice);
    expect(state.calls).toBe(2);
  });
});

describe('IdentityAccessGuard API keys and the anonymous budget', () => {
  const VALID = 'apk_valid_key';
  /** identity's VerifyApiKey: one valid key; counts its calls. */
  function keyIdentity() {
    const state = { calls: 0 };
    const identity = {
      verifyApiKey: async ({ key }: { key: string }) => {
        state.calls += 1;
        if (key !== VALID) throw new UnauthorizedError('Invalid, expired or revoked API key');
        return { userId: 'usr_1', tenantId: 'ten_1', role: 'owner', scopes: [], keyId: 'key_1', name: 'ci' };
      },
    };
    return { state, identity };
  }
  /** A request from one address with a bearer token, as much of a Koa context as the guard reads. */
  const request = (token: string) =>
    ({ ip: '203.0.113.9', query: {}, state: {}, get: () => `Bearer ${token}` }) as unknown as Context;
  const statusOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 200,
      (error: { code?: string }) => (error.code === 'rate_limit_exceeded' ? 429 : 401),
    );

  it('an address that spent its budget keeps the keys identity accepted, and only those', async () => {
    const { state, identity } = keyIdentity();
    const guard = new IdentityAccessGuard({
      backends: { identity },
      jwks: {},
      limiter: { consume: async () => undefined },
      cacheTtlMs: 60_000,
      anonymous: new AnonymousLimiter({ perMinute: 1, burst: 2, maxAddresses: 10 }),
    } as unknown as AccessGuardOptions);
    // Nothing is cached while the revocation feed is down: identity is asked every time.
    guard.setLive(false);
    expect(await statusOf(guard.authorize(request(VALID), anyCaller))).toBe(200);
    // Two bogus keys spend the budget of two; the third is refused before identity is asked.
    expect(await statusOf(guard.authorize(request('apk_bogus_1'), anyCaller))).toBe(401);
    expect(await statusOf(guard.authorize(request('apk_bogus_2'), anyCaller))).toBe(401);
    const callsBefore = state.calls;
    expect(await statusOf(guard.authorize(request('apk_bogus_3'), anyCaller))).toBe(429);
    expect(state.calls).toBe(callsBefore);
    // The key identity accepted still gets through, and is still verified by identity each time.
    expect(await statusOf(guard.authorize(request(VALID), anyCaller))).toBe(200);
    expect(await statusOf(guard.authorize(request(VALID), anyCaller))).toBe(200);
    expect(state.calls).toBe(callsBefore + 2);
  });
});
