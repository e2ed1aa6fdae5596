import { sha256Hex } from '@agentplatform/service-kit';
import { inMemoryIdentityDeps } from '../testing/in-memory.js';
import { defaultTenantOf, issueSession } from './issue-session.js';
import { registerUser } from './register-user.js';

const account = { email: 'ada@example.com', password: 'correct horse', fullName: 'Ada', company: 'Acme' };

async function setup() {
  const { deps, fakes } = inMemoryIdentityDeps();
  const ada = await registerUser(deps, account);
  const bob = await registerUser(deps, { ...account, email: 'bob@example.com', company: 'Bobco' });
  return { deps, fakes, ada, bob };
}

describe('issueSession', () => {
  it('issues an access token for the default tenant and a refresh token stored only as its hash', async () => {
    const { deps, fakes, ada } = await setup();
    const session = await issueSession(deps, { userId: ada.user.id });
    expect(session).toMatchObject({ tokenType: 'bearer', expiresIn: 900, refreshExpiresIn: 86_400 });
    expect(session.refreshToken).toMatch(/^rt_[A-Za-z0-9_-]{43}$/);
    const stored = [...fakes.refreshTokens.byId.values()];
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ userId: ada.user.id, tokenHash: sha256Hex(session.refreshToken) });
    expect(JSON.stringify(stored)).not.toContain(session.refreshToken);
    expect(stored[0]!.expiresAt.getTime() - stored[0]!.createdAt.getTime()).toBe(86_400_000);
    // The access token names the user, the tenant and the session (the refresh token family).
    expect(session.accessToken).toBe(`access.${ada.user.id}.${ada.tenantId}.${stored[0]!.familyId}`);
  });

  it('starts a new family on login and keeps the given one on refresh', async () => {
    const { deps, fakes, ada } = await setup();
    const first = await issueSession(deps, { userId: ada.user.id });
    const second = await issueSession(deps, { userId: ada.user.id });
    const refreshed = await issueSession(deps, { userId: ada.user.id, familyId: 'rtk_family' });
    expect(new Set([first.refreshToken, second.refreshToken, refreshed.refreshToken]).size).toBe(3);
    const families = [...fakes.refreshTokens.byId.values()].map((t) => t.familyId);
    expect(new Set(families).size).toBe(3);
    expect(families[2]).toBe('rtk_family');
    expect(refreshed.accessToken).toMatch(/\.rtk_family$/);
  });

  it('acts on a tenant the user owns before one they were only added to earlier', async () => {
    const { deps, fakes, ada, bob } = await setup();
    await fakes.tenants.insertMembership({
      tenantId: bob.tenantId,
      userId: ada.user.id,
      role: 'admin',
      createdAt: new Date(0),
    });
    await expect(defaultTenantOf(deps, ada.user.id)).resolves.toBe(ada.tenantId);
    fakes.tenants.memberships.find((m) => m.userId === ada.user.id && m.tenantId === ada.tenantId)!.role = 'member';
    await expect(defaultTenantOf(deps, ada.user.id)).resolves.toBe(bob.tenantId);
  });

  it('refuses a user who is a member of no tenant (403) and stores no token', async () => {
    const { deps, fakes } = await setup();
    await expect(issueSession(deps, { userId: 'usr_lonely' })).rejects.toMatchObject({ code: 'forbidden' });
    expect(fakes.refreshTokens.byId.size).toBe(0);
  });
});
