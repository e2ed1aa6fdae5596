import type { Context } from 'koa';
import { errors as joseErrors, jwtVerify } from 'jose';
import { ForbiddenError, UnauthorizedError, ValidationError, sha256Hex } from '@agentplatform/service-kit';
import type { Backends } from '../clients/backends.js';
import type { JwksCache } from '../clients/jwks-cache.js';
import { TtlCache } from '../clients/ttl-cache.js';
import type { TenantRateLimiter } from '../middleware/rate-limit.js';
import { SCOPES, type AccessGuard, type Caller, type RouteAccess, type Scope } from './route.js';

export interface AccessGuardOptions {
  backends: Pick<Backends, 'identity'>;
  jwks: JwksCache;
  limiter: TenantRateLimiter;
  /** How long a verified API key or a user's access to a tenant is reused (a revoke waits this long at most). */
  cacheTtlMs: number;
}

type Verified = Omit<Caller, 'kind'>;

/** The claims of a verified access token that the guard uses. */
interface TokenClaims {
  sub: string;
  tid?: unknown;
  exp: number;
}

/** Seconds of clock skew tolerated on `exp`, as in the signature check. */
const CLOCK_TOLERANCE_S = 5;

function knownScopes(values: readonly string[]): Scope[] {
  return values.filter((v): v is Scope => (SCOPES as readonly string[]).includes(v));
}

function bearerToken(ctx: Context): string {
  const header = ctx.get('authorization');
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!match) throw new UnauthorizedError(header ? 'Authorization must be "Bearer <token>"' : 'Missing bearer token');
  return match[1];
}

function requestedTenant(ctx: Context): string | undefined {
  const value = ctx.query.tenant_id;
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw ValidationError.field('query.tenant_id', 'must be a single string');
  return value;
}

/**
 * Authenticates the caller, resolves the tenant, counts the request against the tenant's rate
 * limit and checks the route's access rule.
 *
 * - Access tokens (JWT) are verified locally against identity's cached public keys; a verified
 *   token's claims are reused for a few seconds (under its SHA-256; its expiry is still checked
 *   on every request), since the signature check was ~14% of the gateway's CPU. The user's role
 *   in the requested tenant comes from identity and is cached for a few seconds.
 * - API keys (`apk_...`) are verified by identity (only a hash is stored there); the answer is
 *   cached for a few seconds, which bounds how long a revoked key keeps working.
 */
export class IdentityAccessGuard implements AccessGuard {
  private readonly keys: TtlCache<Verified>;
  private readonly tokens: TtlCache<TokenClaims>;
  private readonly memberships: TtlCache<Verified>;

  constructor(private readonly options: AccessGuardOptions) {
    this.keys = new TtlCache(options.cacheTtlMs);
    this.tokens = new TtlCache(options.cacheTtlMs);
    this.memberships = new TtlCache(options.cacheTtlMs);
  }

  async authorize(ctx: Context, access: RouteAccess): Promise<Caller | undefined> {
    if (access.kind === 'none') return undefined;
    const token = bearerToken(ctx);
    const tenant = requestedTenant(ctx);
    const caller = token.startsWith('apk_')
      ? await this.apiKeyCaller(token, tenant)
      : await this.userCaller(token, tenant);
    // Every authenticated request counts, including the ones refused below for lack of rights.
    await this.options.limiter.consume(ctx, caller.tenantId, caller.plan ?? 'free');
    this.check(caller, access);
    ctx.state.caller = caller;
    return caller;
  }

  private check(caller: Caller, access: RouteAccess): void {
    if (access.kind === 'user') {
      if (caller.kind === 'api_key' && !access.apiKeys) {
        throw new ForbiddenError('This endpoint needs a user access token; API keys cannot use it');
      }
      if (access.roles && !access.roles.includes(caller.role)) {
        throw new ForbiddenError(`This action needs the ${access.roles.join(' or ')} role in the tenant`);
      }
    } else if (access.kind === 'scope' && !caller.scopes.includes(access.scope)) {
      throw new ForbiddenError(`Missing scope ${access.scope}`);
    }
  }

  private async apiKeyCaller(secret: string, tenant: string | undefined): Promise<Caller> {
    // Cached under the key's SHA-256, so no plaintext secret is kept in the cache.
    const verified = await this.keys.get(sha256Hex(secret), async () => {
      const answer = await this.options.backends.identity.verifyApiKey({ key: secret });
      return {
        userId: answer.userId,
        tenantId: answer.tenantId,
        role: answer.role,
        scopes: knownScopes(answer.scopes),
        apiKeyId: answer.keyId,
        plan: answer.plan,
      };
    });
    if (tenant && tenant !== verified.tenantId) throw new ForbiddenError('This API key belongs to another tenant');
    return { kind: 'api_key', ...verified };
  }

  private async userCaller(token: string, tenant: string | undefined): Promise<Caller> {
    const claims = await this.tokens.get(sha256Hex(token), () => this.verifyToken(token));
    if (Date.now() / 1000 > claims.exp + CLOCK_TOLERANCE_S) throw new UnauthorizedError('Access token has expired');
    const userId = claims.sub;
    const tenantId = tenant ?? (typeof claims.tid === 'string' ? claims.tid : '');
    const verified = await this.memberships.get(`${userId}:${tenantId}`, async () => {
      const answer = await this.options.backends.identity.resolveAccess({ userId, tenantId });
      return {
        userId,
        tenantId: answer.tenantId,
        role: answer.role,
        scopes: knownScopes(answer.scopes),
        plan: answer.plan,
      };
    });
    return { kind: 'user', ...verified };
  }

  private async verifyToken(token: string): Promise<TokenClaims> {
    const { issuer, audience } = await this.options.jwks.settings();
    try {
      const { payload } = await jwtVerify(token, (header) => this.options.jwks.key(header.kid), {
        issuer,
        audience,
        algorithms: ['EdDSA', 'ES256'],
        requiredClaims: ['sub', 'exp', 'iat'],
        clockTolerance: CLOCK_TOLERANCE_S,
      });
      return { sub: payload.sub!, tid: payload.tid, exp: payload.exp! };
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw new UnauthorizedError('Access token has expired');
      if (error instanceof joseErrors.JOSEError) throw new UnauthorizedError('Invalid access token');
      throw error;
    }
  }
}
