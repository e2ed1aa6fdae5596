import { ForbiddenError, UnauthorizedError } from '@agentplatform/service-kit';
import { scopesOf, type Role, type Scope } from '../domain/roles.js';
import type { IdentityDeps } from './identity-deps.js';
import { defaultTenantOf } from './issue-session.js';

export interface Access {
  tenantId: string;
  role: Role;
  scopes: readonly Scope[];
  plan: string;
}

/**
 * A user's rights in a tenant: their current role there, its scopes and the tenant's plan. A
 * tenant the user is not a member of, existing or not, is forbidden (no existence oracle).
 */
export async function resolveAccess(deps: IdentityDeps, userId: string, tenantId?: string): Promise<Access> {
  const user = await deps.users.findById(userId);
  if (!user?.isActive) throw new UnauthorizedError('The user no longer exists or is disabled');
  const target = tenantId || (await defaultTenantOf(deps, userId));
  const [membership, tenant] = await Promise.all([
    deps.tenants.findMembership(target, userId),
    deps.tenants.findTenant(target),
  ]);
  if (!membership || !tenant) throw new ForbiddenError('You are not a member of this tenant');
  return { tenantId: target, role: membership.role, scopes: scopesOf(membership.role), plan: tenant.plan };
}
