import { UnauthorizedError, ValidationError, sha256Hex } from '@agentplatform/service-kit';
import type { IdentityDeps } from './identity-deps.js';
import { issueSession, type Session } from './issue-session.js';

/**
 * Exchanges a refresh token for a new pair (rotation). A token presented a second time means it
 * leaked or was replayed: the whole family is revoked, which also logs out whoever holds the
 * newest token of that family (OAuth 2.0 Security BCP, refresh token rotation).
 */
export async function refreshSession(deps: IdentityDeps, refreshToken: string): Promise<Session> {
  if (!refreshToken) throw ValidationError.field('refresh_token', 'is required');
  const now = new Date();
  const stored = await deps.refreshTokens.findByHash(sha256Hex(refreshToken));
  if (!stored || stored.revokedAt || stored.expiresAt <= now)
    throw new UnauthorizedError('Invalid or expired refresh token');
  if (stored.usedAt || !(await deps.refreshTokens.markUsed(stored.id, now))) {
    await deps.refreshTokens.revokeFamily(stored.familyId, now);
    throw new UnauthorizedError('Refresh token was already used; its session has been revoked');
  }
  const user = await deps.users.findById(stored.userId);
  if (!user?.isActive) throw new UnauthorizedError('Invalid or expired refresh token');
  return issueSession(deps, user.id, stored.familyId);
}
