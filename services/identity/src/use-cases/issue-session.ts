import { ForbiddenError, newId, sha256Hex } from '@agentplatform/service-kit';
import { randomToken } from '../security/secrets.js';
import type { UseCaseDeps } from './deps.js';

export interface Session {
  accessToken: string;
  tokenType: 'bearer';
  expiresIn: number;
  refreshToken: string;
  refreshExpiresIn: number;
}

/** The tenant a user acts on when none is named: the oldest tenant they own, else their oldest membership. */
export async function defaultTenantOf(deps: UseCaseDeps, userId: string): Promise<string> {
  const memberships = await deps.tenants.membershipsOf(userId);
  const chosen = memberships.find((m) => m.role === 'owner') ?? memberships[0];
  if (!chosen) throw new ForbiddenError('The user is not a member of any tenant');
  return chosen.tenantId;
}

/**
 * An access token and a refresh token of the given family (a new family on login).
 */
export async function issueSession(deps: UseCaseDeps, input: { userId: string; familyId?: string }): Promise<Session> {
  const { userId, familyId = newId('rtk') } = input;
  const tenantId = await defaultTenantOf(deps, userId);
  const refreshToken = `rt_${randomToken()}`;
  const now = new Date();
  await deps.refreshTokens.insert({
    id: newId('rtk'),
    tokenHash: sha256Hex(refreshToken),
    familyId,
    userId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + deps.settings.refreshTtlMs),
  });
  return {
    accessToken: await deps.tokens.issue(userId, tenantId, familyId),
    tokenType: 'bearer',
    expiresIn: deps.tokens.ttlSeconds,
    refreshToken,
    refreshExpiresIn: Math.floor(deps.settings.refreshTtlMs / 1000),
  };
}
