import { UnauthorizedError, sha256Hex } from '@agentplatform/service-kit';
import { effectiveScopes, type Role, type Scope } from '../domain/roles.js';
import type { UseCaseDeps } from './deps.js';

export interface VerifiedKey {
  keyId: string;
  userId: string;
  tenantId: string;
  role: Role;
  scopes: Scope[];
  plan: string;
  name: string;
  keyPrefix: string;
  expiresAt?: string;
}

/** last_used_at is written at most this often per key. */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * Checks a presented API key. The lookup is by the SHA-256 of the secret over a unique index, so
 * the comparison happens inside the index, never as a byte-by-byte string compare in our code.
 */
export async function verifyApiKey(deps: UseCaseDeps, input: { secret: string }): Promise<VerifiedKey> {
  const { secret } = input;
  const invalid = new UnauthorizedError('Invalid, expired or revoked API key');
  if (!secret.startsWith('apk_')) throw invalid;
  const key = await deps.apiKeys.findByHash(sha256Hex(secret));
  const now = new Date();
  if (!key || key.revokedAt || (key.expiresAt && key.expiresAt <= now)) throw invalid;
  const [user, membership, tenant] = await Promise.all([
    deps.users.findById(key.createdBy),
    deps.tenants.findMembership(key.tenantId, key.createdBy),
    deps.tenants.findTenant(key.tenantId),
  ]);
  // A key dies with its creator's membership: it never outlives the person who vouched for it.
  if (!user?.isActive || !membership || !tenant) throw invalid;
  await deps.apiKeys.touch(key.tenantId, key.id, now, new Date(now.getTime() - TOUCH_INTERVAL_MS));
  return {
    keyId: key.id,
    userId: key.createdBy,
    tenantId: key.tenantId,
    role: membership.role,
    scopes: effectiveScopes(key.scopes, membership.role),
    plan: tenant.plan,
    name: key.name,
    keyPrefix: key.keyPrefix,
    expiresAt: key.expiresAt?.toISOString(),
  };
}
