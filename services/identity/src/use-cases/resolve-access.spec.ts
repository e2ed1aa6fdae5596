import { inMemoryIdentityDeps } from '../testing/in-memory.js';
import { issueSession } from './issue-session.js';
import { logout } from './refresh-session.js';
import { registerUser } from './register-user.js';
import { resolveAccess } from './resolve-access.js';

const account = { email: 'ada@example.com', password: 'correct horse', fullName: 'Ada', company: 'Acme' };

async function setup() {
  const { deps, fakes } = inMemoryIdentityDeps();
  const ada = await registerUser(deps, account);
  const bob = await registerUser(deps, { ...account, email: 'bob@example.com', company: 'Bobco' });
  const sessionOf = async (userId: string) => {
    const session = await issueSession(deps, { userId });
    const sessionId = [...fakes.refreshTokens.byId.values()].at(-1)!.familyId;
    return { ...session, sessionId };
  };
  return { deps, fakes, ada, bob, sessionOf };
}

describe('resolveAccess', () => {
  it("answers the user's role, its scopes and the plan of their default tenant", async () => {
    const { deps, ada } = await setup();
    const access = await resolveAccess(deps, { userId: ada.user.id });
    expect(access).toMatchObject({ tenantId: ada.tenantId, role: 'owner', plan: 'free' });
    expect(access.scopes).toEqual(expect.arrayContaining(['webhooks:write', 'billing:read', 'workflows:execute']));
  });

  it('grants a viewer read scopes only, in the tenant named', async () => {
    const { deps, fakes, ada, bob } = await setup();
    await fakes.tenants.insertMembership({
      tenantId: bob.tenantId,
      userId: ada.user.id,
      role: 'viewer',
      createdAt: new Date(),
    });
    const access = await resolveAccess(deps, { userId: ada.user.id, tenantId: bob.tenantId });
    expect(access).toMatchObject({ tenantId: bob.tenantId, role: 'viewer' });
    expect([...access.scopes].sort()).toEqual(['agents:read', 'memory:read', 'webhooks:read', 'workflows:read']);
  });

  it('forbids a tenant the user is not a member of, existing or not, alike', async () => {
    const { deps, ada, bob } = await setup();
    const existing = await resolveAccess(deps, { userId: ada.user.id, tenantId: bob.tenantId }).catch((e) => e);
    const missing = await resolveAccess(deps, { userId: ada.user.id, tenantId: 'ten_nope' }).catch((e) => e);
    expect(existing).toMatchObject({ code: 'forbidden' });
    expect([missing.code, missing.message]).toEqual([existing.code, existing.message]);
  });

  it('refuses a disabled or deleted user (401)', async () => {
    const { deps, fakes, ada } = await setup();
    await expect(resolveAccess(deps, { userId: 'usr_gone' })).rejects.toMatchObject({ code: 'unauthorized' });
    fakes.users.byId.get(ada.user.id)!.isActive = false;
    await expect(resolveAccess(deps, { userId: ada.user.id })).rejects.toMatchObject({ code: 'unauthorized' });
  });

  it('accepts a live session, and refuses it once logged out or expired (401)', async () => {
    const { deps, fakes, ada, sessionOf } = await setup();
    const live = await sessionOf(ada.user.id);
    await expect(resolveAccess(deps, { userId: ada.user.id, sessionId: live.sessionId })).resolves.toMatchObject({
      role: 'owner',
    });
    await logout(deps, { refreshToken: live.refreshToken });
    await expect(resolveAccess(deps, { userId: ada.user.id, sessionId: live.sessionId })).rejects.toMatchObject({
      code: 'unauthorized',
      message: expect.stringContaining('session'),
    });

    const expired = await sessionOf(ada.user.id);
    for (const token of fakes.refreshTokens.byId.values()) {
      if (token.familyId === expired.sessionId) token.expiresAt = new Date(Date.now() - 1);
    }
    await expect(resolveAccess(deps, { userId: ada.user.id, sessionId: expired.sessionId })).rejects.toMatchObject({
      code: 'unauthorized',
    });
    await expect(resolveAccess(deps, { userId: ada.user.id, sessionId: 'rtk_unknown' })).rejects.toMatchObject({
      code: 'unauthorized',
    });
  });

  it('reflects a role change at once (no stale scopes)', async () => {
    const { deps, fakes, ada, bob } = await setup();
    await fakes.tenants.insertMembership({
      tenantId: bob.tenantId,
      userId: ada.user.id,
      role: 'member',
      createdAt: new Date(),
    });
    const before = await resolveAccess(deps, { userId: ada.user.id, tenantId: bob.tenantId });
    expect(before.scopes).toContain('workflows:execute');
    fakes.tenants.memberships.find((m) => m.userId === ada.user.id && m.tenantId === bob.tenantId)!.role = 'viewer';
    const after = await resolveAccess(deps, { userId: ada.user.id, tenantId: bob.tenantId });
    expect(after.scopes).not.toContain('workflows:execute');
  });
});
