/**
 * Roles and scopes (docs/design.md section 4). This is the one table mapping a tenant role to the
 * scopes it grants; the gateway receives the resulting scopes with every verified caller.
 */
import { SCOPES, isScope, type Scope } from '@agentplatform/service-kit';

export { SCOPES, isScope, type Scope };

export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const READ: Scope[] = ['agents:read', 'memory:read', 'workflows:read', 'webhooks:read'];
const WORK: Scope[] = ['agents:write', 'memory:write', 'workflows:write', 'workflows:execute'];

export const ROLE_SCOPES: Readonly<Record<Role, readonly Scope[]>> = {
  // Purchases and member management are owner-only actions checked by role, not by scope.
  owner: [...READ, ...WORK, 'webhooks:write', 'billing:read'],
  admin: [...READ, ...WORK, 'webhooks:write', 'billing:read'],
  member: [...READ, ...WORK],
  viewer: [...READ],
};

export function scopesOf(role: Role): readonly Scope[] {
  return ROLE_SCOPES[role];
}

/** An API key acts within its own scopes and its creator's current role. */
export function effectiveScopes(keyScopes: readonly string[], role: Role): Scope[] {
  const granted = new Set<string>(ROLE_SCOPES[role]);
  return SCOPES.filter((scope) => keyScopes.includes(scope) && granted.has(scope));
}

/** Roles that see and manage every API key of their tenant, not only their own. */
export function managesAllKeys(role: Role): boolean {
  return role === 'owner' || role === 'admin';
}
