import type { identityV1 } from '@agentplatform/contracts';
import { createAccessEvent } from '@agentplatform/events/catalogue';
import { IdentityAccessGuard, type AccessGuardOptions } from './access-guard.js';
import type { Caller } from './route.js';

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
