import { randomBytes } from 'node:crypto';
import { STANDARD_SECRET_PREFIX } from './signature.js';

const MIN_SECRET_LENGTH = 16;
const MAX_SECRET_LENGTH = 256;

/** A new secret in the Standard Webhooks serialization: `whsec_` + base64 of 32 random bytes. */
export function generateSecret(): string {
  return `${STANDARD_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** Why a caller-supplied secret is unusable, or undefined when it is fine. */
export function secretProblem(secret: string): string | undefined {
  if (secret.length < MIN_SECRET_LENGTH) return `must be at least ${MIN_SECRET_LENGTH} characters`;
  if (secret.length > MAX_SECRET_LENGTH) return `must be at most ${MAX_SECRET_LENGTH} characters`;
  if (!/^[\x21-\x7e]+$/.test(secret)) return 'must contain only printable ASCII characters without spaces';
  if (secret.startsWith(STANDARD_SECRET_PREFIX)) {
    const encoded = secret.slice(STANDARD_SECRET_PREFIX.length);
    const bytes = Buffer.from(encoded, 'base64');
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || bytes.length < 24 || bytes.length > 64) {
      return 'a whsec_ secret must be base64 of 24 to 64 bytes';
    }
  }
  return undefined;
}

/** A secret that signs until `expires_at` (the previous secret during rotation). */
export interface GraceSecret {
  secret: string;
  expires_at: Date;
}

/** The secrets that sign now: the current one first, then those still in their grace period. */
export function signingSecrets(current: string, previous: readonly GraceSecret[], now = new Date()): string[] {
  return [current, ...previous.filter((p) => p.expires_at > now).map((p) => p.secret)];
}
