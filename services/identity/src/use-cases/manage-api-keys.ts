import { createAccessEvent } from '@agentplatform/events/catalogue';
import { ForbiddenError, NotFoundError, newId, sha256Hex, type FieldIssue } from '@agentplatform/service-kit';
import { throwIfIssues } from '../domain/account-rules.js';
import { isScope, managesAllKeys, scopesOf, type Role } from '../domain/roles.js';
import type { ApiKey } from '../persistence/api-key.repository.js';
import { randomBase62 } from '../security/secrets.js';
import type { UseCaseDeps } from './deps.js';

/** `apk_` + 40 base62 characters: about 238 bits of entropy. */
const SECRET_LENGTH = 40;
const KEY_PREFIX_LENGTH = 12;

export interface CreateApiKeyInput {
  userId: string;
  tenantId: string;
  name: string;
  scopes: string[];
  expiresAt?: string;
}

async function roleIn(deps: UseCaseDeps, tenantId: string, userId: string): Promise<Role> {
  const membership = await deps.tenants.findMembership(tenantId, userId);
  if (!membership) throw new ForbiddenError('You are not a member of this tenant');
  return membership.role;
}

/** Creates a key in the tenant; it may carry only scopes its creator's role grants. */
export async function createApiKey(
  deps: UseCaseDeps,
  input: CreateApiKeyInput,
): Promise<{ apiKey: ApiKey; secret: string }> {
  const role = await roleIn(deps, input.tenantId, input.userId);
  const granted = scopesOf(role);
  const issues: Array<FieldIssue | undefined> = [];
  const name = input.name.trim();
  if (!name) issues.push({ field: 'name', message: 'is required' });
  else if (name.length > 100) issues.push({ field: 'name', message: 'must be at most 100 characters' });
  if (input.scopes.length === 0) issues.push({ field: 'scopes', message: 'must name at least one scope' });
  input.scopes.forEach((scope, index) => {
    if (!isScope(scope)) issues.push({ field: `scopes[${index}]`, message: `unknown scope "${scope}"` });
    else if (!granted.includes(scope))
      issues.push({ field: `scopes[${index}]`, message: `your role (${role}) does not grant ${scope}` });
  });
  let expiresAt: Date | undefined;
  if (input.expiresAt) {
    expiresAt = new Date(input.expiresAt);
    if (Number.isNaN(expiresAt.getTime()))
      issues.push({ field: 'expires_at', message: 'must be an ISO 8601 timestamp' });
    else if (expiresAt.getTime() <= Date.now()) issues.push({ field: 'expires_at', message: 'must be in the future' });
  }
  throwIfIssues(issues);

  const secret = `apk_${randomBase62(SECRET_LENGTH)}`;
  const apiKey: ApiKey = {
    id: newId('key'),
    tenantId: input.tenantId,
    createdBy: input.userId,
    name,
    keyHash: sha256Hex(secret),
    keyPrefix: secret.slice(0, KEY_PREFIX_LENGTH),
    scopes: [...new Set(input.scopes)],
    expiresAt,
    createdAt: new Date(),
  };
  await deps.apiKeys.insert(apiKey);
  return { apiKey, secret };
}

/** Owners and admins see every key of the tenant; other roles see the keys they made. */
export async function listApiKeys(deps: UseCaseDeps, input: { tenantId: string; userId: string }): Promise<ApiKey[]> {
  const { tenantId, userId } = input;
  const role = await roleIn(deps, tenantId, userId);
  return deps.apiKeys.listActive(tenantId, managesAllKeys(role) ? undefined : userId);
}

/** Revokes a key; someone else's key is invisible (404) to a role that cannot manage it. */
export async function revokeApiKey(
  deps: UseCaseDeps,
  input: { tenantId: string; userId: string; keyId: string },
): Promise<void> {
  const { tenantId, userId, keyId } = input;
  const role = await roleIn(deps, tenantId, userId);
  const key = await deps.apiKeys.findActive(tenantId, keyId);
  if (!key || (key.createdBy !== userId && !managesAllKeys(role))) throw new NotFoundError('API key');
  // The event tells every gateway replica to forget the key at once (docs/design.md section 4).
  await deps.outbox.run(async (session) => {
    const revoked = await deps.apiKeys.revoke(tenantId, keyId, new Date(), session);
    return {
      result: undefined,
      events: revoked ? [createAccessEvent('access.api_key.revoked', tenantId, { key_id: keyId })] : [],
    };
  });
}
