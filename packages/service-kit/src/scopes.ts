/**
 * The API scopes of docs/design.md section 4, `<resource>:<action>`. Identity grants them (by role and
 * API key); the gateway requires exactly one per route.
 */
export const SCOPES = [
  'agents:read',
  'agents:write',
  'memory:read',
  'memory:write',
  'workflows:read',
  'workflows:write',
  'workflows:execute',
  'webhooks:read',
  'webhooks:write',
  'billing:read',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
