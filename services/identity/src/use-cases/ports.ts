import type { ClientSession } from 'mongoose';
import type { Outbox } from '@agentplatform/events';
import type { ChainHead, LedgerEntry, Movement } from '../domain/credit-chain.js';
import type { ApiKey } from '../persistence/api-key.repository.js';
import type { RefreshToken } from '../persistence/refresh-token.repository.js';
import type { Membership, MembershipWithTenant, Tenant } from '../persistence/tenant.repository.js';
import type { User } from '../persistence/user.repository.js';
import type { PublicJwk } from '../security/signing-key-ring.js';

/**
 * The ports the identity use cases work through: what each rule needs, no more. main.ts binds
 * the mongoose repositories and the security helpers to them; testing/in-memory.ts binds fakes.
 * A session is the outbox's: a write made inside `outbox.run` passes it on.
 */
export type Session = ClientSession;

/** The outbox as the use cases write to it: their writes and their events, together. */
export type EventOutbox = Pick<Outbox, 'run' | 'publish'>;

export interface UserStore {
  insert(user: User, session?: Session): Promise<void>;
  findByEmail(email: string): Promise<User | undefined>;
  findById(id: string): Promise<User | undefined>;
  findWithTenants(id: string): Promise<{ user: User; tenants: MembershipWithTenant[] } | undefined>;
}

export interface TenantStore {
  insertTenant(tenant: Tenant, session?: Session): Promise<void>;
  insertMembership(membership: Membership, session?: Session): Promise<void>;
  findTenant(tenantId: string): Promise<Tenant | undefined>;
  findMembership(tenantId: string, userId: string): Promise<Membership | undefined>;
  membershipsOf(userId: string): Promise<MembershipWithTenant[]>;
}

export interface RefreshTokenStore {
  insert(token: RefreshToken): Promise<void>;
  findByHash(tokenHash: string): Promise<RefreshToken | undefined>;
  /** True for the one caller that marked it used. */
  markUsed(id: string, at: Date): Promise<boolean>;
  revokeFamily(familyId: string, at: Date, session?: Session): Promise<number>;
  familyRevoked(familyId: string): Promise<boolean>;
  sessionLive(familyId: string, now: Date): Promise<boolean>;
}

export interface ApiKeyStore {
  insert(key: ApiKey): Promise<void>;
  findByHash(keyHash: string): Promise<ApiKey | undefined>;
  findActive(tenantId: string, id: string): Promise<ApiKey | undefined>;
  listActive(tenantId: string, createdBy?: string): Promise<ApiKey[]>;
  revoke(tenantId: string, id: string, at: Date, session?: Session): Promise<boolean>;
  touch(tenantId: string, id: string, at: Date, olderThan: Date): Promise<void>;
}

/** Failed-login windows per account (docs/security.md, "Login lockout"). */
export interface LoginThrottleStore {
  countAttempt(
    account: string,
    now: Date,
    policy: { windowMs: number },
  ): Promise<{ attempt: number; lockedUntil?: Date }>;
  lock(account: string, until: Date): Promise<void>;
  clear(account: string): Promise<void>;
}

/**
 * The tenants' credit ledgers (docs/credits.md): each movement is one
 * entry keyed by its operation's id, so a retry finds the entry instead of moving credits twice.
 */
export interface CreditLedger {
  openAccount(tenantId: string, balance: number, armed: boolean, session?: Session): Promise<void>;
  /** An entry written outside the chain's writer (the welcome grant, inside registration). */
  insertEntry(entry: LedgerEntry, session?: Session): Promise<void>;
  /** The movement's entry: a new one, or the one an earlier movement with its key made. */
  write(tenantId: string, movement: Movement): Promise<LedgerEntry>;
  /** The reservation entry with this operation id, or undefined when there is none. */
  findHold(tenantId: string, key: string): Promise<LedgerEntry | undefined>;
  /** Marks a reservation closed (its closing entry is written): no sweep looks at it again. */
  closeHold(hold: LedgerEntry): Promise<void>;
  /** Open reservations whose expiry has passed by `now`, at most `limit`, the longest expired first. */
  expiredHolds(now: Date, limit: number): Promise<LedgerEntry[]>;
  head(tenantId: string): Promise<ChainHead | undefined>;
  /** The newest entries first. */
  recent(tenantId: string, limit: number): Promise<LedgerEntry[]>;
  /** Disarms the low-credit alert; true for the one caller that disarmed it. */
  disarmLowAlert(tenantId: string): Promise<boolean>;
  armLowAlert(tenantId: string): Promise<void>;
}

export interface SigningKeyMarks {
  /** True for the one replica that marked the key withdrawn. */
  markWithdrawn(kid: string, at: Date, session?: Session): Promise<boolean>;
}

export interface PasswordCheck {
  hash(password: string): Promise<string>;
  verify(password: string, hash: string | undefined): Promise<boolean>;
}

export interface AccessTokens {
  readonly ttlSeconds: number;
  issue(userId: string, tenantId: string, sessionId: string): Promise<string>;
}

export interface PublishedKeys {
  publicKeys(): PublicJwk[];
}
