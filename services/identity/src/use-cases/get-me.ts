import { UnauthorizedError } from '@agentplatform/service-kit';
import type { MembershipWithTenant } from '../persistence/tenant.repository.js';
import type { User } from '../persistence/user.repository.js';
import type { UseCaseDeps } from './deps.js';

export async function getMe(
  deps: UseCaseDeps,
  input: { userId: string },
): Promise<{ user: User; tenants: MembershipWithTenant[] }> {
  const { userId } = input;
  // One database call: the user, their memberships and the tenants' names (docs/performance.md).
  const me = await deps.users.findWithTenants(userId);
  if (!me) throw new UnauthorizedError('The user no longer exists');
  return me;
}
