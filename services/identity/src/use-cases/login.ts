import { DomainError, UnauthorizedError } from '@agentplatform/service-kit';
import { normalizeEmail, throwIfIssues } from '../domain/account-rules.js';
import { PASSWORD_MAX_BYTES } from '../security/password-hasher.js';
import type { IdentityDeps } from './identity-deps.js';
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
 * the endpoint cannot be used to find accounts. After `maxFailures` failures within the window the
 * account is locked for the lockout period (OWASP: lock per account, not only per address, so a
 * distributed guesser is stopped too); even the right password is refused while locked.
 */
export async function login(deps: IdentityDeps, input: { email: string; password: string }): Promise<Session> {
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
  const locked = await deps.loginThrottles.lockedUntil(email, now);
  if (locked) throw lockedOut(locked, now);

  const user = await deps.users.findByEmail(email);
  const valid = await deps.hasher.verify(input.password, user?.passwordHash);
  if (!user || !valid || !user.isActive) {
    const failures = await deps.loginThrottles.recordFailure(email, now, windowMs);
    if (failures >= maxFailures) {
      const until = new Date(now.getTime() + lockoutMs);
      await deps.loginThrottles.lock(email, until);
      throw lockedOut(until, now);
    }
    throw new UnauthorizedError('Invalid e-mail or password');
  }
  await deps.loginThrottles.clear(email);
  return issueSession(deps, user.id);
}
