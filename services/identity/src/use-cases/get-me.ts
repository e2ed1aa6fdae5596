import { UnauthorizedError } from '@agentplatform/service-kit';
import type { MembershipWithTenant } from '../persistence/tenant.repository.js';
import type { User } from '../persistence/user.repository.js';
import type { IdentityDeps } from './identity-deps.js';

export async function getMe(
  deps: IdentityDeps,
  userId: string,
): Promise<{ user: User; tenants: MembershipWithTenant[] }> {
  const [user, tenants] = await Promise.all([deps.users.findById(userId), deps.tenants.membershipsOf(userId)]);
  if (!user) throw new UnauthorizedError('The user no longer exists');
  return { user, tenants };
}
