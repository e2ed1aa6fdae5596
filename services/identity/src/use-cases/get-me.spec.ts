import { inMemoryIdentityDeps } from '../testing/in-memory.js';
import { getMe } from './get-me.js';
import { registerUser } from './register-user.js';

const account = { email: 'ada@example.com', password: 'correct horse', fullName: 'Ada', company: 'Acme' };

describe('getMe', () => {
  it("answers the user with their own tenants only; another user's tenant is invisible", async () => {
    const { deps } = inMemoryIdentityDeps();
    const ada = await registerUser(deps, account);
    const bob = await registerUser(deps, { ...account, email: 'bob@example.com', company: 'Bobco' });
    const me = await getMe(deps, { userId: ada.user.id });
    expect(me.user).toMatchObject({ id: ada.user.id, email: 'ada@example.com', fullName: 'Ada' });
    expect(me.tenants).toEqual([
      expect.objectContaining({ tenantId: ada.tenantId, tenantName: 'Acme', role: 'owner', userId: ada.user.id }),
    ]);
    expect(JSON.stringify(me)).not.toContain(bob.tenantId);
  });

  it('lists a tenant the user was added to, with their role there', async () => {
    const { deps, fakes } = inMemoryIdentityDeps();
    const ada = await registerUser(deps, account);
    const bob = await registerUser(deps, { ...account, email: 'bob@example.com', company: 'Bobco' });
    await fakes.tenants.insertMembership({
      tenantId: bob.tenantId,
      userId: ada.user.id,
      role: 'viewer',
      createdAt: new Date(Date.now() + 1000),
    });
    const me = await getMe(deps, { userId: ada.user.id });
    expect(me.tenants.map((t) => [t.tenantName, t.role])).toEqual([
      ['Acme', 'owner'],
      ['Bobco', 'viewer'],
    ]);
  });

  it('is unauthorized for a user that no longer exists', async () => {
    const { deps } = inMemoryIdentityDeps();
    await expect(getMe(deps, { userId: 'usr_gone' })).rejects.toMatchObject({ code: 'unauthorized' });
  });
});
