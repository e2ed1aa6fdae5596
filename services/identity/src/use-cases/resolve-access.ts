import { ForbiddenError, UnauthorizedError } from '@agentplatform/service-kit';
import { scopesOf, type Role, type Scope } from '../domain/roles.js';
import type { UseCaseDeps } from './deps.js';
import { defaultTenantOf } from './issue-session.js';

export interface Access {
  tenantId: string;
  role: Role;
  scopes: readonly Scope[];
  plan: string;
}

/**
 * A user's rights in a tenant: their current role there, its scopes and the tenant's plan. A
 * tenant the user is not a member of, existing or not, is forbidden (no existence oracle). With
 * the access token's session id, an ended session (logout, refresh reuse) is unauthorized.
 */
export async function resolveAccess(
  deps: UseCaseDeps,
  input: { userId: string; tenantId?: string; sessionId?: string },
): Promise<Access> {
  const { userId, tenantId, sessionId } = input;
  const [user, live] = await Promise.all([
    deps.users.findById(userId),
    sessionId ? deps.refreshTokens.sessionLive(sessionId, new Date()) : true,
  ]);
  if (!user?.isActive) throw new UnauthorizedError('The user no longer exists or is disabled');
  if (!live) throw new UnauthorizedError('The session of this access token has ended');
  const target = tenantId || (await defaultTenantOf(deps, userId));
  const [membership, tenant] = await Promise.all([
    deps.tenants.findMembership(target, userId),
    deps.tenants.findTenant(target),
  ]);
  if (!membership || !tenant) throw new ForbiddenError('You are not a member of this tenant');
  return { tenantId: target, role: membership.role, scopes: scopesOf(membership.role), plan: tenant.plan };
}
