import { DomainError, UnauthorizedError } from '@agentplatform/service-kit';
import { normalizeEmail, PASSWORD_MAX_BYTES, throwIfIssues } from '../domain/account-rules.js';
import type { UseCaseDeps } from './deps.js';
import { issueSession, type Session } from './issue-session.js';

function lockedOut(until: Date, now: Date): DomainError {
  const retryAfter = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
  return new DomainError(
    'rate_limit_exceeded',
    'Too many failed logins for this account; try again later',
    [],
    retryAfter,
  );
}

/**
 * Password login. Unknown e-mail and wrong password get the same answer in the same time, so
 * the endpoint cannot be used to find accounts. The attempt is counted atomically before the
 * password is checked (docs/design.md section 4): of a window's attempts only the first `maxFailures`
 * reach bcrypt, however many arrive at once, and the failure that uses up the budget locks the
 * account for the lockout period; even the right password is refused while locked. A success
 * clears the count. (The per-address budget is the gateway's, counted before identity is asked.)
 */
export async function login(deps: UseCaseDeps, input: { email: string; password: string }): Promise<Session> {
  throwIfIssues([
    input.email ? undefined : { field: 'username', message: 'is required' },
    input.password ? undefined : { field: 'password', message: 'is required' },
    Buffer.byteLength(input.password, 'utf8') > PASSWORD_MAX_BYTES
      ? { field: 'password', message: `must be at most ${PASSWORD_MAX_BYTES} bytes` }
      : undefined,
  ]);
  const email = normalizeEmail(input.email);
  const { maxFailures, windowMs, lockoutMs } = deps.settings.lockout;
  const now = new Date();
  const { attempt, lockedUntil } = await deps.loginThrottles.countAttempt(email, now, { windowMs });
  if (lockedUntil) throw lockedOut(lockedUntil, now);
  if (attempt > maxFailures) {
    // Attempts in flight used up the budget and one of them will lock; refuse without a check.
    throw lockedOut(new Date(now.getTime() + lockoutMs), now);
  }

  const user = await deps.users.findByEmail(email);
  const valid = await deps.hasher.verify(input.password, user?.passwordHash);
  if (!user || !valid || !user.isActive) {
    if (attempt >= maxFailures) {
      const until = new Date(Date.now() + lockoutMs);
      await deps.loginThrottles.lock(email, until);
      throw lockedOut(until, new Date());
    }
    throw new UnauthorizedError('Invalid e-mail or password');
  }
  await deps.loginThrottles.clear(email);
  return issueSession(deps, { userId: user.id });
}
