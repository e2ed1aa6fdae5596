import { InMemoryOutbox } from '@agentplatform/testing/in-memory';
import type { ChainHead, LedgerEntry } from '../domain/credit-chain.js';
import type { ApiKey } from '../persistence/api-key.repository.js';
import { ChainedLedger, type LedgerStore } from '../persistence/credit-ledger.js';
import type { DueHold } from '../persistence/credit.repository.js';
import type { RefreshToken } from '../persistence/refresh-token.repository.js';
import type { Membership, MembershipWithTenant, Tenant } from '../persistence/tenant.repository.js';
import type { User } from '../persistence/user.repository.js';
import type { UseCaseDeps } from '../use-cases/deps.js';
import type {
  AccessTokens,
  ApiKeyStore,
  LoginThrottleStore,
  PasswordCheck,
  RefreshTokenStore,
  SigningKeyMarks,
  TenantStore,
  UserStore,
} from '../use-cases/ports.js';

/** Users in memory, with the unique e-mail index of the real collection. */
export class InMemoryUsers implements UserStore {
  readonly byId = new Map<string, User>();
  constructor(private readonly tenants: InMemoryTenants) {}
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
  /** The user with their memberships, each named after its tenant (one whose tenant is gone is left out). */
  async findWithTenants(id: string): Promise<{ user: User; tenants: MembershipWithTenant[] } | undefined> {
    const user = this.byId.get(id);
    if (!user) return undefined;
    const tenants = (await this.tenants.membershipsOf(id)).filter((m) => this.tenants.tenants.has(m.tenantId));
    return { user: { ...user }, tenants };
  }
}

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
export class InMemoryLoginThrottles implements LoginThrottleStore {
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
export const fakeHasher: PasswordCheck = {
  async hash(password) {
    return `hashed:${password}`;
  },
  async verify(password, hash) {
    return hash === `hashed:${password}`;
  },
};

/** Access tokens that name what they were issued for. */
export const fakeTokens: AccessTokens = {
  ttlSeconds: 900,
  async issue(userId, tenantId, sessionId) {
    return `access.${userId}.${tenantId}.${sessionId}`;
  },
};

/**
 * The credit accounts and ledger in memory, with the real collections' rules: unique entry ids
 * and unique (tenant, idempotency key), ordered appends that stop at the first duplicate, the
 * chain's end read from the newest chained entry (else the account's opening balance).
 */
export class InMemoryCredits implements LedgerStore {
  /** The balance each account was opened with. */
  readonly accounts = new Map<string, number>();
  /** Whether the account's low-credit alert is armed. */
  readonly armed = new Map<string, boolean>();
  readonly entries: LedgerEntry[] = [];
  /** Due entries of reservations, by tenant and key. */
  readonly due = new Map<string, DueHold>();

  async openAccount(tenantId: string, balance: number, armed: boolean): Promise<void> {
    this.accounts.set(tenantId, balance);
    this.armed.set(tenantId, armed);
  }
  async head(tenantId: string): Promise<ChainHead | undefined> {
    const balance = this.accounts.get(tenantId);
    if (balance === undefined) return undefined;
    const last = this.chain(tenantId)[0];
    return last ? { seq: last.seq!, balance: last.balanceAfter } : { seq: 0, balance };
  }
  async append(entries: LedgerEntry[]): Promise<{ stored: number; conflict: boolean }> {
    let stored = 0;
    for (const entry of entries) {
      if (this.taken(entry)) return { stored, conflict: true };
      this.entries.push(structuredClone(entry));
      stored++;
    }
    return { stored, conflict: false };
  }
  async insertEntry(entry: LedgerEntry): Promise<void> {
    if (this.taken(entry)) throw Object.assign(new Error('E11000 duplicate key error'), { code: 11000 });
    this.entries.push(structuredClone(entry));
  }
  async findByKeys(tenantId: string, keys: string[]): Promise<LedgerEntry[]> {
    return this.entries
      .filter((e) => e.tenantId === tenantId && keys.includes(e.idempotencyKey))
      .map((e) => structuredClone(e));
  }
  async closeHolds(tenantId: string, holds: ReadonlyArray<Pick<LedgerEntry, 'id' | 'idempotencyKey'>>): Promise<void> {
    const ids = holds.map((h) => h.id);
    for (const entry of this.entries) {
      if (entry.tenantId === tenantId && ids.includes(entry.id)) delete entry.holdExpiresAt;
    }
    await this.dropDue(
      tenantId,
      holds.map((h) => h.idempotencyKey),
    );
  }
  async addDue(holds: readonly DueHold[]): Promise<void> {
    for (const hold of holds) {
      const known = this.due.get(`${hold.tenantId}/${hold.key}`);
      if (!known || known.dueAt < hold.dueAt) this.due.set(`${hold.tenantId}/${hold.key}`, { ...hold });
    }
  }
  async dueHolds(now: Date, limit: number): Promise<DueHold[]> {
    return [...this.due.values()]
      .filter((h) => h.dueAt <= now)
      .sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime())
      .slice(0, limit)
      .map((h) => ({ ...h }));
  }
  async moveDue(hold: DueHold): Promise<void> {
    const key = `${hold.tenantId}/${hold.key}`;
    if (this.due.has(key)) this.due.set(key, { ...hold });
  }
  async dropDue(tenantId: string, keys: readonly string[]): Promise<void> {
    for (const key of keys) this.due.delete(`${tenantId}/${key}`);
  }
  async disarmLowAlert(tenantId: string): Promise<boolean> {
    if (this.armed.get(tenantId) !== true) return false;
    this.armed.set(tenantId, false);
    return true;
  }
  async armLowAlert(tenantId: string): Promise<void> {
    if (this.armed.get(tenantId) === false) this.armed.set(tenantId, true);
  }
  async recent(tenantId: string, limit: number): Promise<LedgerEntry[]> {
    return this.chain(tenantId)
      .slice(0, limit)
      .map((e) => structuredClone(e));
  }
  /** The tenant's balance as the ledger has it now. */
  balance(tenantId: string): number | undefined {
    return this.chain(tenantId)[0]?.balanceAfter ?? this.accounts.get(tenantId);
  }
  private chain(tenantId: string): LedgerEntry[] {
    return this.entries.filter((e) => e.tenantId === tenantId).sort((a, b) => (b.seq ?? 0) - (a.seq ?? 0));
  }
  private taken(entry: LedgerEntry): boolean {
    return this.entries.some(
      (e) => e.id === entry.id || (e.tenantId === entry.tenantId && e.idempotencyKey === entry.idempotencyKey),
    );
  }
}

/** Signing keys' withdrawal marks: the first replica to mark a key wins, as in the collection. */
export class InMemorySigningKeys implements SigningKeyMarks {
  readonly withdrawnAt = new Map<string, Date>();
  constructor(readonly kids: string[] = []) {}
  async markWithdrawn(kid: string, at: Date): Promise<boolean> {
    if (!this.kids.includes(kid) || this.withdrawnAt.has(kid)) return false;
    this.withdrawnAt.set(kid, at);
    return true;
  }
}

/** The identity use cases' deps, every port in memory; credits are the real ledger over an in-memory store. */
export function inMemoryIdentityDeps() {
  const tenants = new InMemoryTenants();
  const fakes = {
    users: new InMemoryUsers(tenants),
    tenants,
    refreshTokens: new InMemoryRefreshTokens(),
    apiKeys: new InMemoryApiKeys(),
    credits: new InMemoryCredits(),
    loginThrottles: new InMemoryLoginThrottles(),
    outbox: new InMemoryOutbox(),
  };
  const deps: UseCaseDeps = {
    ...fakes,
    credits: new ChainedLedger(fakes.credits),
    hasher: fakeHasher,
    tokens: fakeTokens,
    keys: { publicKeys: () => [] },
    settings: {
      defaultPlan: 'free',
      welcomeCredits: 100,
      lowCreditThreshold: 10,
      billingSelfService: true,
      creditHoldTtlMs: 60_000,
      refreshTtlMs: 86_400_000,
      issuer: 'test',
      audience: 'test',
      lockout: { maxFailures: 3, windowMs: 60_000, lockoutMs: 300_000 },
    },
  };
  return { fakes, deps };
}
