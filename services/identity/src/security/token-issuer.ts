import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { SIGNING_ALG, type SigningKeyRing } from './signing-key-ring.js';

export interface TokenIssuerOptions {
  keys: SigningKeyRing;
  issuer: string;
  audience: string;
  ttlSeconds: number;
}

/**
 * Signs access tokens: claims sub, tid, iat, exp, jti, iss, aud (docs/design.md section 4), and `sid`,
 * the refresh family the token belongs to, so revoking the family also stops its access tokens
 * (the gateway asks identity about a session it has not seen and drops it on a revocation event).
 */
export class TokenIssuer {
  constructor(private readonly options: TokenIssuerOptions) {}

  get ttlSeconds(): number {
    return this.options.ttlSeconds;
  }

  async issue(userId: string, tenantId: string, sessionId: string): Promise<string> {
    const { kid, privateKey } = this.options.keys.signingKey();
    return new SignJWT({ tid: tenantId, sid: sessionId })
      .setProtectedHeader({ alg: SIGNING_ALG, kid, typ: 'JWT' })
      .setSubject(userId)
      .setIssuer(this.options.issuer)
      .setAudience(this.options.audience)
      .setIssuedAt()
      .setExpirationTime(`${this.options.ttlSeconds}s`)
      .setJti(randomUUID())
      .sign(privateKey);
  }
}
