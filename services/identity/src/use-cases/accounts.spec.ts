import { inMemoryIdentityDeps } from '../testing/in-memory.js';
import { createApiKey, listApiKeys, revokeApiKey } from './manage-api-keys.js';
import { login } from './login.js';
import { logout, refreshSession, REFRESH_RACE_GRACE_MS } from './refresh-session.js';
import { registerUser } from './register-user.js';
import { verifyApiKey } from './verify-api-key.js';

const account = { email: 'Ada@Example.com', password: 'correct horse', fullName: 'Ada', company: 'Acme' };

async function setup() {
  const { deps, fakes } = inMemoryIdentityDeps();
  const owner = await registerUser(deps, account);
  return { deps, fakes, owner };
}

const fieldsOf = (error: { details: Array<{ field: string }> }) => error.details.map((d) => d.field);

describe('registration and login against in-memory repositories', () => {
  it('registers the user as owner of a new tenant with the welcome credits', async () => {
    const { fakes, owner } = await setup();
    expect(owner).toMatchObject({ user: { email: 'ada@example.com', fullName: 'Ada' }, credits: 100 });
    expect(owner.user.passwordHash).not.toBe(account.password);
    expect(fakes.tenants.tenants.get(owner.tenantId)).toMatchObject({ name: 'Acme', plan: 'free' });
    await expect(fakes.tenants.findMembership(owner.tenantId, owner.user.id)).resolves.toMatchObject({ role: 'owner' });
    expect(fakes.credits.accounts.get(owner.tenantId)).toBe(100);
  });

  it('names every bad field, and refuses an e-mail taken in any letter case (409)', async () => {
    const { deps } = await setup();
    const error = await registerUser(deps, {
      email: 'nope',
      password: 'short',
      fullName: 'x'.repeat(201),
      company: '',
    }).catch((e) => e);
    expect(fieldsOf(error)).toEqual(expect.arrayContaining(['email', 'password', 'full_name']));
    await expect(registerUser(deps, { ...account, email: 'ADA@example.com' })).rejects.toMatchObject({
      code: 'conflict',
    });
  });

  it('logs in with the right password; a wrong password and an unknown e-mail get the same answer', async () => {
    const { deps } = await setup();
    const session = await login(deps, { email: 'ada@example.com', password: account.password });
    expect(session).toMatchObject({ tokenType: 'bearer', expiresIn: 900 });
    const wrong = await login(deps, { email: 'ada@example.com', password: 'wrong password' }).catch((e) => e);
    const unknown = await login(deps, { email: 'bob@example.com', password: 'wrong password' }).catch((e) => e);
    expect([wrong.code, wrong.message]).toEqual([unknown.code, unknown.message]);
    expect(wrong.code).toBe('unauthorized');
  });

  it('locks the account after the allowed failures, even for the right password', async () => {
    const { deps } = await setup();
    const attempt = (password: string) => login(deps, { email: 'ada@example.com', password }).catch((e) => e);
    expect((await attempt('wrong 1')).code).toBe('unauthorized');
    expect((await attempt('wrong 2')).code).toBe('unauthorized');
    const locked = await attempt('wrong 3');
    expect(locked).toMatchObject({ code: 'rate_limit_exceeded' });
    expect(locked.retryAfter).toBeGreaterThan(0);
    expect((await attempt(account.password)).code).toBe('rate_limit_exceeded');
  });

  it('requires the fields by name before counting an attempt', async () => {
    const { deps } = await setup();
    const error = await login(deps, { email: '', password: '' }).catch((e) => e);
    expect(fieldsOf(error)).toEqual(['username', 'password']);
  });
});

describe('refresh token rotation', () => {
  it('rotates once; a reuse outside the race grace revokes the whole session', async () => {
    const { deps, fakes } = await setup();
    const first = await login(deps, { email: 'ada@example.com', password: account.password });
    const second = await refreshSession(deps, { refreshToken: first.refreshToken });
    expect(second.refreshToken).not.toBe(first.refreshToken);
    const used = [...fakes.refreshTokens.byId.values()].find((t) => t.usedAt)!;
    used.usedAt = new Date(Date.now() - REFRESH_RACE_GRACE_MS - 1);
    await expect(refreshSession(deps, { refreshToken: first.refreshToken })).rejects.toThrow(
      'its session has been revoked',
    );
    await expect(refreshSession(deps, { refreshToken: second.refreshToken })).rejects.toMatchObject({
      code: 'unauthorized',
    });
    expect(fakes.outbox.types()).toEqual(['access.session.revoked']);
  });

  it('refuses a concurrent second use without revoking, and an unknown token', async () => {
    const { deps } = await setup();
    const first = await login(deps, { email: 'ada@example.com', password: account.password });
    const second = await refreshSession(deps, { refreshToken: first.refreshToken });
    await expect(refreshSession(deps, { refreshToken: first.refreshToken })).rejects.toThrow('concurrent request');
    await expect(refreshSession(deps, { refreshToken: second.refreshToken })).resolves.toBeDefined();
    await expect(refreshSession(deps, { refreshToken: 'rt_unknown' })).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(refreshSession(deps, { refreshToken: '' })).rejects.toMatchObject({
      details: [{ field: 'refresh_token' }],
    });
  });

  it('logs out once: the session ends, a second logout is no error', async () => {
    const { deps } = await setup();
    const session = await login(deps, { email: 'ada@example.com', password: account.password });
    await expect(logout(deps, { refreshToken: session.refreshToken })).resolves.toMatch(/^rtk_/);
    await expect(logout(deps, { refreshToken: session.refreshToken })).resolves.toBeUndefined();
    await expect(refreshSession(deps, { refreshToken: session.refreshToken })).rejects.toMatchObject({
      code: 'unauthorized',
    });
  });
});

describe('API keys', () => {
  async function withMember() {
    const ctx = await setup();
    const member = await registerUser(ctx.deps, { ...account, email: 'mem@example.com' });
    await ctx.fakes.tenants.insertMembership({
      tenantId: ctx.owner.tenantId,
      userId: member.user.id,
      role: 'member',
      createdAt: new Date(),
    });
    const key = (userId: string, extra: { scopes?: string[]; expiresAt?: string; name?: string } = {}) =>
      createApiKey(ctx.deps, { userId, tenantId: ctx.owner.tenantId, name: 'ci', scopes: ['agents:read'], ...extra });
    return { ...ctx, member, key };
  }

  it('creates a key whose secret verifies to its tenant, role and scopes; the hash is stored, not the secret', async () => {
    const { deps, fakes, owner, key } = await withMember();
    const { apiKey, secret } = await key(owner.user.id);
    expect(secret).toMatch(/^apk_[0-9A-Za-z]{40}$/);
    expect(JSON.stringify([...fakes.apiKeys.byId.values()])).not.toContain(secret);
    await expect(verifyApiKey(deps, { secret })).resolves.toMatchObject({
      keyId: apiKey.id,
      tenantId: owner.tenantId,
      role: 'owner',
      scopes: ['agents:read'],
      plan: 'free',
    });
    await expect(verifyApiKey(deps, { secret: `${secret}x` })).rejects.toMatchObject({ code: 'unauthorized' });
  });

  it('refuses scopes the role does not grant, unknown scopes, an empty name and a past expiry, by field', async () => {
    const { member, key } = await withMember();
    const error = await key(member.user.id, {
      name: ' ',
      scopes: ['webhooks:write', 'root'],
      expiresAt: '2001-01-01T00:00:00Z',
    }).catch((e) => e);
    expect(fieldsOf(error)).toEqual(['name', 'scopes[0]', 'scopes[1]', 'expires_at']);
  });

  it('refuses a caller who is not a member of the tenant (403)', async () => {
    const { deps, owner } = await withMember();
    const outsider = await registerUser(deps, { ...account, email: 'out@example.com' });
    await expect(
      createApiKey(deps, { userId: outsider.user.id, tenantId: owner.tenantId, name: 'x', scopes: ['agents:read'] }),
    ).rejects.toMatchObject({ code: 'forbidden' });
  });

  it("lets a member see and revoke only their own keys; the owner's key is 404 to them", async () => {
    const { deps, fakes, owner, member, key } = await withMember();
    const ownerKey = await key(owner.user.id);
    const memberKey = await key(member.user.id);
    const tenantId = owner.tenantId;
    await expect(listApiKeys(deps, { tenantId, userId: member.user.id })).resolves.toEqual([
      expect.objectContaining({ id: memberKey.apiKey.id }),
    ]);
    await expect(listApiKeys(deps, { tenantId, userId: owner.user.id })).resolves.toHaveLength(2);
    await expect(
      revokeApiKey(deps, { tenantId, userId: member.user.id, keyId: ownerKey.apiKey.id }),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
    await revokeApiKey(deps, { tenantId, userId: owner.user.id, keyId: memberKey.apiKey.id });
    expect(fakes.outbox.types()).toEqual(['access.api_key.revoked']);
    await expect(verifyApiKey(deps, { secret: memberKey.secret })).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(
      revokeApiKey(deps, { tenantId, userId: owner.user.id, keyId: memberKey.apiKey.id }),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});
