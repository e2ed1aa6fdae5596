import { ValidationError, type FieldIssue } from '@agentplatform/service-kit';

/** bcrypt reads at most 72 bytes: longer passwords are refused, never silently truncated. */
export const PASSWORD_MAX_BYTES = 72;
const PASSWORD_MIN_LENGTH = 8;

// Pragmatic e-mail shape (one @, a dot in the domain, no spaces); deliverability is not checked.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function emailIssue(email: string, field = 'email'): FieldIssue | undefined {
  if (!email) return { field, message: 'is required' };
  if (email.length > 254 || !EMAIL.test(email)) return { field, message: 'must be a valid e-mail address' };
  return undefined;
}

export function passwordIssue(password: string, field = 'password'): FieldIssue | undefined {
  if (!password) return { field, message: 'is required' };
  if ([...password].length < PASSWORD_MIN_LENGTH)
    return { field, message: `must be at least ${PASSWORD_MIN_LENGTH} characters` };
  if (Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES) {
    return { field, message: `must be at most ${PASSWORD_MAX_BYTES} bytes (bcrypt's limit)` };
  }
  return undefined;
}

export function throwIfIssues(issues: Array<FieldIssue | undefined>): void {
  const found = issues.filter((i): i is FieldIssue => i !== undefined);
  if (found.length > 0) throw new ValidationError(found);
}
