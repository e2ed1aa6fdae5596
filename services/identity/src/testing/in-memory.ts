import { InMemoryOutbox } from '@agentplatform/testing';
import type { ApiKey, ApiKeyRepository } from '../persistence/api-key.repository.js';
import type { LoginThrottleRepository } from '../persistence/login-throttle.repository.js';
import type { RefreshToken, RefreshTokenRepository } from '../persistence/refresh-token.repository.js';
import type { Membership, MembershipWithTenant, Tenant, TenantRepository } from '../persistence/tenant.repository.js';
import type { User, UserRepository } from '../persistence/user.repository.js';
import type { PasswordHasher } from '../security/password-hasher.js';
import type { TokenIssuer } from '../security/token-issuer.js';
import type { UseCaseDeps } from '../use-cases/deps.js';

/** Users in memory, with the unique e-mail index of the real collection. */
export class InMemoryUsers implements Pick<UserRepository, 'insert' | 'findByEmail' | 'findById'> {
  readonly byId = new Map<string, User>();
  async insert(user: User): Promise<void> {
    if ([...this.byId.values()].some((u) => u.email === user.email)) {
      throw Object.assign(new Error('E11000 duplicate key error'), { code: 11000 });
    }
    this.byId.set(user.id, { ...user });
  }
  async findByEmail(email: string): Promise<User | undefined> {
    return [...this.byId.values()].find((u) => u.email === email);
  }
  async findById(id: string): Promise<User | undefined> {
    return this.byId.get(id);
  }
}

type TenantStore = Pick<
  TenantRepository,
  'insertTenant' | 'insertMembership' | 'findTenant' | 'findMembership' | 'membershipsOf'
>;

export class InMemoryTenants implements TenantStore {
  readonly tenants = new Map<string, Tenant>();
  readonly memberships: Membership[] = [];
  async insertTenant(tenant: Tenant): Promise<void> {
    this.tenants.set(tenant.id, { ...tenant });
  }
  async insertMembership(membership: Membership): Promise<void> {
    this.memberships.push({ ...membership });
  }
  async findTenant(tenantId: string): Promise<Tenant | undefined> {
    return this.tenants.get(tenantId);
  }
  async findMembership(tenantId: string, userId: string): Promise<Membership | undefined> {
    return this.memberships.find((m) => m.tenantId === tenantId && m.userId === userId);
  }
  async membershipsOf(userId: string): Promise<MembershipWithTenant[]> {
    return this.memberships
      .filter((m) => m.userId === userId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .map((m) => ({ ...m, tenantName: this.tenants.get(m.tenantId)?.name ?? '' }));
  }
}

type ApiKeyStore = Pick<ApiKeyRepository, 'insert' | 'findByHash' | 'findActive' | 'listActive' | 'revoke' | 'touch'>;

export class InMemoryApiKeys implements ApiKeyStore {
  readonly byId = new Map<string, ApiKey>();
  async insert(key: ApiKey): Promise<void> {
    this.byId.set(key.id, { ...key });
  }
  async findByHash(keyHash: string): Promise<ApiKey | undefined> {
    return [...this.byId.values()].find((k) => k.keyHash === keyHash);
  }
  async findActive(tenantId: string, id: string): Promise<ApiKey | undefined> {
    const key = this.byId.get(id);
    return key?.tenantId === tenantId && !key.revokedAt ? key : undefined;
  }
  async listActive(tenantId: string, createdBy?: string): Promise<ApiKey[]> {
    return [...this.byId.values()].filter(
      (k) => k.tenantId === tenantId && !k.revokedAt && (!createdBy || k.createdBy === createdBy),
    );
  }
  async revoke(tenantId: string, id: string, at: Date): Promise<boolean> {
    const key = await this.findActive(tenantId, id);
    if (!key) return false;
    this.byId.set(id, { ...key, revokedAt: at });
    return true;
  }
  async touch(tenantId: string, id: string, at: Date, olderThan: Date): Promise<void> {
    const key = this.byId.get(id);
    if (key?.tenantId === tenantId && (!key.lastUsedAt || key.lastUsedAt < olderThan)) key.lastUsedAt = at;
  }
}

type RefreshTokenStore = Pick<
  RefreshTokenRepository,
  'insert' | 'findByHash' | 'markUsed' | 'revokeFamily' | 'familyRevoked' | 'sessionLive'
>;

export class InMemoryRefreshTokens implements RefreshTokenStore {
  readonly byId = new Map<string, RefreshToken>();
  async insert(token: RefreshToken): Promise<void> {
    this.byId.set(token.id, { ...token });
  }
  async findByHash(tokenHash: string): Promise<RefreshToken | undefined> {
    const found = [...this.byId.values()].find((t) => t.tokenHash === tokenHash);
    return found && { ...found };
  }
  async markUsed(id: string, at: Date): Promise<boolean> {
    const token = this.byId.get(id);
    if (!token || token.usedAt) return false;
    token.usedAt = at;
    return true;
  }
  async revokeFamily(familyId: string, at: Date): Promise<number> {
    let revoked = 0;
    for (const t of this.byId.values()) {
      if (t.familyId === familyId && !t.revokedAt) {
        t.revokedAt = at;
        revoked++;
      }
    }
    return revoked;
  }
  async familyRevoked(familyId: string): Promise<boolean> {
    return [...this.byId.values()].some((t) => t.familyId === familyId && t.revokedAt);
  }
  async sessionLive(familyId: string, now: Date): Promise<boolean> {
    return [...this.byId.values()].some((t) => t.familyId === familyId && !t.revokedAt && t.expiresAt > now);
  }
}

/** Failed-login windows per account: the counting rule of the real repository, in memory. */
export class InMemoryLoginThrottles implements Pick<LoginThrottleRepository, 'countAttempt' | 'lock' | 'clear'> {
  private readonly windows = new Map<string, { failures: number; startedAt: Date; lockedUntil?: Date }>();
  async countAttempt(account: string, now: Date, policy: { windowMs: number }) {
    const current = this.windows.get(account);
    const open =
      current &&
      (current.lockedUntil ? current.lockedUntil > now : current.startedAt.getTime() > now.getTime() - policy.windowMs);
    if (!current || !open) {
      this.windows.set(account, { failures: 1, startedAt: now });
      return { attempt: 1 };
    }
    current.failures += 1;
    return { attempt: current.failures, lockedUntil: current.lockedUntil };
  }
  async lock(account: string, until: Date): Promise<void> {
    const current = this.windows.get(account);
    if (current) current.lockedUntil = until;
  }
  async clear(account: string): Promise<void> {
    this.windows.delete(account);
  }
}

/** A reversible stand-in for bcrypt (the real hasher is slow by design). */
export const fakeHasher: Pick<PasswordHasher, 'hash' | 'verify'> = {
  async hash(password) {
    return `hashed:${password}`;
  },
  async verify(password, hash) {
    return hash === `hashed:${password}`;
  },
};

/** Access tokens that name what they were issued for. */
export const fakeTokens: Pick<TokenIssuer, 'issue' | 'ttlSeconds'> = {
  ttlSeconds: 900,
  async issue(userId, tenantId, sessionId) {
    return `access.${userId}.${tenantId}.${sessionId}`;
  },
};

/** The credit ledger as registration writes it: the opened accounts and their entries. */
export class RecordingCredits {
  readonly accounts = new Map<string, number>();
  readonly entries: Array<{ tenantId: string; amount: number; idempotencyKey: string }> = [];
  async openAccount(tenantId: string, balance: number): Promise<void> {
    this.accounts.set(tenantId, balance);
  }
  async insertEntry(entry: { tenantId: string; amount: number; idempotencyKey: string }): Promise<void> {
    this.entries.push(entry);
  }
}

/** The identity use cases' deps, every port in memory (credits: registration's writes only). */
export function inMemoryIdentityDeps() {
  const fakes = {
    users: new InMemoryUsers(),
    tenants: new InMemoryTenants(),
    refreshTokens: new InMemoryRefreshTokens(),
    apiKeys: new InMemoryApiKeys(),
    credits: new RecordingCredits(),
    loginThrottles: new InMemoryLoginThrottles(),
    outbox: new InMemoryOutbox(),
    hasher: fakeHasher,
    tokens: fakeTokens,
    keys: {},
    settings: {
      defaultPlan: 'free' as const,
      welcomeCredits: 100,
      lowCreditThreshold: 10,
      creditHoldTtlMs: 60_000,
      refreshTtlMs: 86_400_000,
      issuer: 'test',
      audience: 'test',
      lockout: { maxFailures: 3, windowMs: 60_000, lockoutMs: 300_000 },
    },
  };
  // The fakes implement the methods the use cases call (checked above); the repository classes
  // also carry their mongoose internals, which no use case sees.
  return { fakes, deps: fakes as unknown as UseCaseDeps };
}
