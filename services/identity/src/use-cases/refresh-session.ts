import { createAccessEvent } from '@agentplatform/events/catalogue';
import { UnauthorizedError, ValidationError, sha256Hex } from '@agentplatform/service-kit';
import type { RefreshToken } from '../persistence/refresh-token.repository.js';
import type { UseCaseDeps } from './deps.js';
import { issueSession, type Session } from './issue-session.js';

/**
 * A token presented again this soon after its first use is a race between two requests of the
 * same client (two tabs refreshing at once), not a replay: the loser is refused and the family
 * keeps exactly one live token, the winner's. Later reuse revokes the family.
 */
export const REFRESH_RACE_GRACE_MS = 5_000;

/** Ends a session: every token of the family is revoked and every gateway replica is told. */
export async function revokeSession(
  deps: UseCaseDeps,
  token: Pick<RefreshToken, 'familyId' | 'userId'>,
  reason: 'reuse' | 'logout',
): Promise<void> {
  await deps.outbox.run(async (session) => {
    const revoked = await deps.refreshTokens.revokeFamily(token.familyId, new Date(), session);
    const data = { session_id: token.familyId, user_id: token.userId, reason };
    return { result: undefined, events: revoked > 0 ? [createAccessEvent('access.session.revoked', '', data)] : [] };
  });
}

/**
 * Exchanges a refresh token for a new pair (rotation). A token presented a second time, outside
 * the race grace, means it leaked or was replayed: the whole family is revoked, which also logs out
 * whoever holds the newest token of that family (OAuth 2.0 Security BCP, refresh token rotation).
 */
export async function refreshSession(deps: UseCaseDeps, input: { refreshToken: string }): Promise<Session> {
  const { refreshToken } = input;
  if (!refreshToken) throw ValidationError.field('refresh_token', 'is required');
  const now = new Date();
  const stored = await deps.refreshTokens.findByHash(sha256Hex(refreshToken));
  if (!stored || stored.revokedAt || stored.expiresAt <= now)
    throw new UnauthorizedError('Invalid or expired refresh token');
  if (stored.usedAt || !(await deps.refreshTokens.markUsed(stored.id, now))) {
    // No usedAt: another request marked it between our read and our write, i.e. just now.
    const usedAt = stored.usedAt ?? now;
    if (now.getTime() - usedAt.getTime() < REFRESH_RACE_GRACE_MS)
      throw new UnauthorizedError('Refresh token was already used by a concurrent request');
    await revokeSession(deps, stored, 'reuse');
    throw new UnauthorizedError('Refresh token was already used; its session has been revoked');
  }
  const user = await deps.users.findById(stored.userId);
  if (!user?.isActive) throw new UnauthorizedError('Invalid or expired refresh token');
  const session = await issueSession(deps, { userId: user.id, familyId: stored.familyId });
  // A reuse may have revoked the family while we issued: our new token must not outlive it.
  if (await deps.refreshTokens.familyRevoked(stored.familyId)) {
    await revokeSession(deps, stored, 'reuse');
    throw new UnauthorizedError('Refresh token was already used; its session has been revoked');
  }
  return session;
}

/**
 * Logout: ends the refresh token's session and returns its id; an unknown or already ended one is
 * no error (undefined).
 */
export async function logout(deps: UseCaseDeps, input: { refreshToken: string }): Promise<string | undefined> {
  const { refreshToken } = input;
  if (!refreshToken) throw ValidationError.field('refresh_token', 'is required');
  const stored = await deps.refreshTokens.findByHash(sha256Hex(refreshToken));
  if (!stored || stored.revokedAt) return undefined;
  await revokeSession(deps, stored, 'logout');
  return stored.familyId;
}
