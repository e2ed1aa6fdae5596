import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { errors as joseErrors, jwtVerify } from 'jose';
import { LRUCache } from 'lru-cache';
import type { identityV1 } from '@agentplatform/contracts';
import type { AccessEvent } from '@agentplatform/events';
import {
  DomainError,
  ForbiddenError,
  UnauthorizedError,
  ValidationError,
  setCurrentTenant,
  sha256Hex,
} from '@agentplatform/service-kit';
import type { Backends } from '../clients/backends.js';
import type { JwksCache } from '../clients/jwks-cache.js';
import type { RevocationListener } from '../clients/revocation-feed.js';
import { AnonymousLimiter } from './anonymous-limit.js';
import { clientAddress } from './client-address.js';
import { RevocableCache } from './revocable-cache.js';
import { SCOPES, type AccessGuard, type Caller, type CallerAccess, type RouteAccess, type Scope } from './route.js';

/**
 * The per-tenant request budget (middleware/rate-limit.ts implements it): counts one request of a
 * caller that got through, sets the X-RateLimit headers, throws once the budget is spent.
 */
interface TenantBudget {
  consume(ctx: Context, tenantId: string, plan: string): Promise<void>;
}

export interface AccessGuardOptions {
  backends: Pick<Backends, 'identity'>;
  jwks: JwksCache;
  limiter: TenantBudget;
  /** How long a verified credential or a user's access to a tenant is reused (see config.ts). */
  cacheTtlMs: number;
  /** Requests without valid credentials, per client address; docs/design.md section 5 by default. */
  anonymous?: AnonymousLimiter;
  /** OPERATOR_TOKEN: what `operator` routes take; unset, they refuse everyone. */
  operatorToken?: string;
}

type Verified = Omit<Caller, 'kind'>;

/** The claims of a verified access token that the guard uses. */
interface TokenClaims {
  sub: string;
  tid?: unknown;
  exp: number;
  /** The session (refresh family), for tokens issued since sessions are named. */
  sid?: string;
  /** The signing key, so a withdrawn key's tokens can be dropped. */
  kid?: string;
}

/** Seconds of clock skew tolerated on `exp`, as in the signature check. */
const CLOCK_TOLERANCE_S = 5;

/** An `apk_` key identity did not accept is answered 401 without asking again for this long. */
const INVALID_KEY_MEMORY_MS = 60_000;
const INVALID_KEYS_MAX = 100_000;

/**
 * An `apk_` key identity accepted is let past the address's anonymous budget for this long, even
 * once its answer left the credential cache (a few seconds, and nothing while the revocation feed
 * is down): an address that spent its budget (on unknown hook ids, say) must not lock out the
 * keys it already uses. Identity is still asked on every cache miss, so revocation is unchanged.
 */
const VALID_KEY_MEMORY_MS = 3_600_000;
const VALID_KEYS_MAX = 100_000;

function knownScopes(values: readonly string[]): Scope[] {
  return values.filter((v): v is Scope => (SCOPES as readonly string[]).includes(v));
}

function bearerToken(ctx: Context): string {
  const header = ctx.get('authorization');
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!match) throw new UnauthorizedError(header ? 'Authorization must be "Bearer <token>"' : 'Missing bearer token');
  return match[1];
}

function sha256Digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function requestedTenant(ctx: Context): string | undefined {
  const value = ctx.query.tenant_id;
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw ValidationError.field('query.tenant_id', 'must be a single string');
  return value;
}

function isUnauthorized(error: unknown): boolean {
  return error instanceof DomainError && error.code === 'unauthorized';
}

/**
 * Whether an authenticated caller may use something guarded by `access`: a route, or an MCP tool
 * (which checks the scope of the REST route it stands for, after the request was authenticated).
 */
export function checkAccess(caller: Caller, access: RouteAccess): void {
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

/**
 * Authenticates the caller, resolves the tenant, counts the request against the tenant's rate
 * limit and checks the route's access rule.
 *
 * - Access tokens (JWT) are verified locally against identity's cached public keys; a verified
 *   token's claims are reused for a few seconds (under its SHA-256; its expiry is still checked
 *   on every request), since the signature check was ~14% of the gateway's CPU. The user's role
 *   in the requested tenant, and whether the token's session is still open, come from identity
 *   and are cached for a few seconds.
 * - API keys (`apk_...`) are verified by identity (only a hash is stored there); the answer is
 *   cached for a few seconds. An unknown key is remembered as invalid for a minute.
 * - A user's profile and tenants (`GET /auth/me`, `profile`) are cached the same way, per user.
 *   They are read only after the request was authorized by the caches above, so they never
 *   decide whether a request is accepted; a session's revocation drops its user's profile too.
 * - Every cache gives way to a revocation at once (`revoke`, fed by identity's access events
 *   and called directly for changes made through this replica), and nothing is cached while
 *   the revocation feed is not live (`setLive`).
 * - Requests with no or invalid credentials draw from the per-address anonymous budget. An API
 *   key identity has not accepted within the hour is refused (429) before identity is asked when
 *   its address has spent the budget; access tokens are checked locally first, so they never are.
 */
export class IdentityAccessGuard implements AccessGuard, RevocationListener {
  private readonly keys: RevocableCache<Verified>;
  private readonly tokens: RevocableCache<TokenClaims>;
  private readonly memberships: RevocableCache<Verified>;
  private readonly profiles: RevocableCache<identityV1.GetMeResponse & { userId: string }>;
  // Counted by maxSize, not max: `max` would allocate every slot up front (docs/performance.md).
  private readonly invalidKeys = new LRUCache<string, true>({
    maxSize: INVALID_KEYS_MAX,
    sizeCalculation: () => 1,
    ttl: INVALID_KEY_MEMORY_MS,
  });
  private readonly validKeys = new LRUCache<string, true>({
    maxSize: VALID_KEYS_MAX,
    sizeCalculation: () => 1,
    ttl: VALID_KEY_MEMORY_MS,
  });
  private readonly anonymous: AnonymousLimiter;

  constructor(private readonly options: AccessGuardOptions) {
    this.keys = new RevocableCache(options.cacheTtlMs);
    this.tokens = new RevocableCache(options.cacheTtlMs);
    this.memberships = new RevocableCache(options.cacheTtlMs);
    this.profiles = new RevocableCache(options.cacheTtlMs);
    this.anonymous = options.anonymous ?? new AnonymousLimiter();
  }

  authorize(ctx: Context, access: CallerAccess): Promise<Caller>;
  authorize(ctx: Context, access: RouteAccess): Promise<Caller | undefined>;
  async authorize(ctx: Context, access: RouteAccess): Promise<Caller | undefined> {
    if (access.kind === 'none') return undefined;
    const address = clientAddress(ctx);
    if (access.kind === 'operator') {
      this.verifyOperator(ctx, address);
      return undefined;
    }
    let caller: Caller;
    try {
      const token = bearerToken(ctx);
      const tenant = requestedTenant(ctx);
      caller = token.startsWith('apk_')
        ? await this.apiKeyCaller(token, tenant, address)
        : await this.userCaller(token, tenant);
    } catch (error) {
      // The anonymous budget pays for every request its credentials did not get through.
      if (isUnauthorized(error)) this.anonymous.take(address);
      throw error;
    }
    // Every authenticated request counts, including the ones refused below for lack of rights.
    await this.options.limiter.consume(ctx, caller.tenantId, caller.plan ?? 'free');
    checkAccess(caller, access);
    ctx.state.caller = caller;
    // The backends' in-flight bounds count this request's calls against its tenant's share.
    setCurrentTenant(caller.tenantId);
    return caller;
  }

  /**
   * The user's profile and memberships as identity's GetMe answers them, for a caller this guard
   * has authorized (a user, not an API key): one identity call per user and cache lifetime.
   */
  profile(caller: Caller): Promise<identityV1.GetMeResponse> {
    const userId = caller.userId;
    return this.profiles.get(userId, async () => ({
      ...(await this.options.backends.identity.getMe({ userId })),
      userId,
    }));
  }

  /** Applies one of identity's access events to what this replica cached. */
  revoke(event: AccessEvent): void {
    switch (event.type) {
      case 'access.api_key.revoked': {
        const { key_id } = event.data as AccessEvent<'access.api_key.revoked'>['data'];
        this.keys.deleteWhere((verified) => verified.apiKeyId === key_id);
        break;
      }
      case 'access.session.revoked': {
        const { session_id, user_id } = event.data as AccessEvent<'access.session.revoked'>['data'];
        this.forgetSession(session_id);
        this.profiles.deleteWhere((profile) => profile.userId === user_id);
        break;
      }
      case 'access.signing_key.withdrawn': {
        const { kid } = event.data as AccessEvent<'access.signing_key.withdrawn'>['data'];
        this.options.jwks.withdraw(kid);
        this.tokens.deleteWhere((claims) => claims.kid === kid);
        break;
      }
    }
  }

  /** A key revoked through this replica: forgotten before the DELETE answers, not when the event arrives. */
  forgetApiKey(keyId: string): void {
    this.keys.deleteWhere((verified) => verified.apiKeyId === keyId);
  }

  /** A session ended through this replica (logout): forgotten before the logout answers. */
  forgetSession(sessionId: string): void {
    this.tokens.deleteWhere((claims) => claims.sid === sessionId);
    let userId: string | undefined;
    this.memberships.deleteWhere((verified) => {
      if (verified.sessionId !== sessionId) return false;
      userId = verified.userId;
      return true;
    });
    if (userId) this.profiles.delete(userId);
  }

  setLive(live: boolean): void {
    for (const cache of [this.keys, this.tokens, this.memberships, this.profiles]) {
      if (cache.enabled === live) continue;
      cache.enabled = live;
      if (!live) cache.clear();
    }
  }

  /**
   * The operator token, compared in constant time (of SHA-256 digests, so the length of the
   * configured token leaks nothing either). A wrong one draws from the address's anonymous budget
   * like any bogus credential, so it cannot be guessed at speed.
   */
  private verifyOperator(ctx: Context, address: string): void {
    this.anonymous.check(address);
    const expected = this.options.operatorToken;
    let presented = '';
    try {
      presented = bearerToken(ctx);
    } catch {
      // Missing or malformed: refused below like a wrong token.
    }
    const matches =
      expected !== undefined && timingSafeEqual(sha256Digest(presented), sha256Digest(expected)) && presented !== '';
    if (!matches) {
      this.anonymous.take(address);
      throw new UnauthorizedError('Invalid operator token');
    }
  }

  private async apiKeyCaller(secret: string, tenant: string | undefined, address: string): Promise<Caller> {
    // Cached under the key's SHA-256, so no plaintext secret is kept in the cache.
    const hash = sha256Hex(secret);
    if (this.invalidKeys.has(hash)) throw new UnauthorizedError('Invalid, expired or revoked API key');
    if (!this.keys.has(hash) && !this.validKeys.has(hash)) this.anonymous.check(address);
    let verified: Verified;
    try {
      verified = await this.keys.get(hash, async () => {
        const answer = await this.options.backends.identity.verifyApiKey({ key: secret });
        return {
          userId: answer.userId,
          tenantId: answer.tenantId,
          role: answer.role,
          scopes: knownScopes(answer.scopes),
          apiKeyId: answer.keyId,
          apiKeyName: answer.name,
          apiKeyPrefix: answer.keyPrefix,
          apiKeyExpiresAt: answer.expiresAt,
          plan: answer.plan,
        };
      });
    } catch (error) {
      if (isUnauthorized(error)) {
        this.invalidKeys.set(hash, true);
        this.validKeys.delete(hash);
      }
      throw error;
    }
    this.validKeys.set(hash, true);
    if (tenant && tenant !== verified.tenantId) throw new ForbiddenError('This API key belongs to another tenant');
    return { kind: 'api_key', ...verified };
  }

  /** Access tokens are verified here, without a backend: only a failed one draws from the anonymous budget. */
  private async userCaller(token: string, tenant: string | undefined): Promise<Caller> {
    const claims = await this.tokens.get(sha256Hex(token), () => this.verifyToken(token));
    if (Date.now() / 1000 > claims.exp + CLOCK_TOLERANCE_S) throw new UnauthorizedError('Access token has expired');
    const userId = claims.sub;
    const tenantId = tenant ?? (typeof claims.tid === 'string' ? claims.tid : '');
    const sessionId = claims.sid ?? '';
    const verified = await this.memberships.get(`${userId}:${tenantId}:${sessionId}`, async () => {
      const answer = await this.options.backends.identity.resolveAccess({ userId, tenantId, sessionId });
      return {
        userId,
        tenantId: answer.tenantId,
        role: answer.role,
        scopes: knownScopes(answer.scopes),
        plan: answer.plan,
        sessionId: claims.sid,
      };
    });
    return { kind: 'user', ...verified };
  }

  private async verifyToken(token: string): Promise<TokenClaims> {
    const { issuer, audience } = await this.options.jwks.settings();
    try {
      const { payload, protectedHeader } = await jwtVerify(token, (header) => this.options.jwks.key(header.kid), {
        issuer,
        audience,
        algorithms: ['EdDSA', 'ES256'],
        requiredClaims: ['sub', 'exp', 'iat'],
        clockTolerance: CLOCK_TOLERANCE_S,
      });
      return {
        sub: payload.sub!,
        tid: payload.tid,
        exp: payload.exp!,
        sid: typeof payload.sid === 'string' ? payload.sid : undefined,
        kid: protectedHeader.kid,
      };
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw new UnauthorizedError('Access token has expired');
      if (error instanceof joseErrors.JOSEError) throw new UnauthorizedError('Invalid access token');
      throw error;
    }
  }
}
