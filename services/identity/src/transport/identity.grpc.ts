import { randomUUID } from 'node:crypto';
import { identityV1 } from '@agentplatform/contracts/identity-v1';
import { ValidationError, requireTenant, toCallError, type Logger } from '@agentplatform/service-kit';
import type { ApiKey } from '../persistence/api-key.repository.js';
import type { LedgerEntry } from '../persistence/credit.repository.js';
import type { User } from '../persistence/user.repository.js';
import {
  chargeCredits,
  getBalance,
  getCredits,
  grantCredits,
  purchaseCredits,
  refundCredits,
  releaseCredits,
  reserveCredits,
  settleCredits,
  type Settlement,
} from '../use-cases/credits.js';
import { getMe } from '../use-cases/get-me.js';
import type { UseCaseDeps } from '../use-cases/deps.js';
import { login } from '../use-cases/login.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../use-cases/manage-api-keys.js';
import { logout, refreshSession } from '../use-cases/refresh-session.js';
import { registerUser } from '../use-cases/register-user.js';
import { resolveAccess } from '../use-cases/resolve-access.js';
import { verifyApiKey } from '../use-cases/verify-api-key.js';

function toUser(u: User): identityV1.User {
  return { id: u.id, email: u.email, fullName: u.fullName, isActive: u.isActive, createdAt: u.createdAt.toISOString() };
}

/** The key as callers see it: without its hash and revocation, dates as ISO strings. */
function toApiKey(key: ApiKey): identityV1.ApiKey {
  const { keyHash: _keyHash, revokedAt: _revokedAt, expiresAt, lastUsedAt, createdAt, ...fields } = key;
  return {
    ...fields,
    expiresAt: expiresAt?.toISOString(),
    lastUsedAt: lastUsedAt?.toISOString(),
    createdAt: createdAt.toISOString(),
  };
}

/** An entry as callers see it: what it did to the balance, and when. */
function toLedgerEntry({
  id,
  type,
  amount,
  balanceAfter,
  description,
  createdAt,
}: LedgerEntry): identityV1.LedgerEntry {
  return { id, type, amount, balanceAfter, description, createdAt: createdAt.toISOString() };
}

function toPurchaseResponse(made: LedgerEntry): identityV1.PurchaseCreditsResponse {
  return {
    purchaseId: made.id,
    credits: made.amount,
    balance: made.balanceAfter,
    createdAt: made.createdAt.toISOString(),
  };
}

/** Items one ReserveMany or SettleMany call may carry. */
const MAX_ITEMS_PER_CALL = 256;

function checkBatch(items: unknown[]): void {
  if (items.length > MAX_ITEMS_PER_CALL)
    throw ValidationError.field('items', `must be at most ${MAX_ITEMS_PER_CALL} per call`);
}

/**
 * Maps the proto messages to the use cases and back; no rules live here. The logger records the
 * unexpected errors of batch items (a failed single call is logged by the server middleware).
 */
export function identityService(deps: UseCaseDeps, logger: Logger): identityV1.IdentityServiceImplementation {
  const reserve = async (req: identityV1.ReserveRequest): Promise<identityV1.ReserveResponse> => {
    const made = await reserveCredits(deps, {
      tenantId: requireTenant(req.tenantId),
      operationId: req.operationId,
      amount: req.amount,
      description: req.description,
    });
    return {
      balance: made.entry.balanceAfter,
      entryId: made.entry.id,
      reserved: made.reserved,
      expiresAt: made.expiresAt?.toISOString() ?? '',
    };
  };
  const settle = (req: identityV1.SettleRequest): Promise<Settlement> =>
    settleCredits(deps, {
      tenantId: requireTenant(req.tenantId),
      operationId: req.operationId,
      used: req.used,
      description: req.description,
    });
  /** Each item on its own, all at once (the credit writer batches a tenant's entries); errors per item. */
  const failed = (method: string) => (error: unknown) => ({
    outcome: { $case: 'error' as const, value: toCallError(error, logger, method) },
  });
  return {
    async register(req) {
      const result = await registerUser(deps, {
        email: req.email,
        password: req.password,
        fullName: req.fullName,
        company: req.company,
      });
      return { user: toUser(result.user), tenantId: result.tenantId, credits: result.credits };
    },
    async login(req) {
      return login(deps, { email: req.email, password: req.password });
    },
    async refresh(req) {
      return refreshSession(deps, { refreshToken: req.refreshToken });
    },
    async logout(req) {
      return { sessionId: (await logout(deps, { refreshToken: req.refreshToken })) ?? '' };
    },
    async getMe(req) {
      const me = await getMe(deps, { userId: req.userId });
      return {
        user: toUser(me.user),
        tenants: me.tenants.map((m) => ({ id: m.tenantId, name: m.tenantName, role: m.role })),
      };
    },
    async getJwks() {
      return { keys: deps.keys.publicKeys(), issuer: deps.settings.issuer, audience: deps.settings.audience };
    },
    async resolveAccess(req) {
      const access = await resolveAccess(deps, {
        userId: req.userId,
        tenantId: req.tenantId || undefined,
        sessionId: req.sessionId || undefined,
      });
      return { tenantId: access.tenantId, role: access.role, scopes: [...access.scopes], plan: access.plan };
    },
    async verifyApiKey(req) {
      return verifyApiKey(deps, { secret: req.key });
    },
    async createApiKey(req) {
      const created = await createApiKey(deps, {
        userId: req.userId,
        tenantId: requireTenant(req.tenantId),
        name: req.name,
        scopes: req.scopes,
        expiresAt: req.expiresAt,
      });
      return { apiKey: toApiKey(created.apiKey), key: created.secret };
    },
    async listApiKeys(req) {
      return {
        items: (await listApiKeys(deps, { tenantId: requireTenant(req.tenantId), userId: req.userId })).map(toApiKey),
      };
    },
    async revokeApiKey(req) {
      await revokeApiKey(deps, { tenantId: requireTenant(req.tenantId), userId: req.userId, keyId: req.keyId });
      return { success: true };
    },
    async getBalance(req) {
      return { balance: await getBalance(deps, { tenantId: requireTenant(req.tenantId) }) };
    },
    async charge(req) {
      const made = await chargeCredits(deps, {
        tenantId: requireTenant(req.tenantId),
        amount: req.amount,
        idempotencyKey: req.idempotencyKey,
        description: req.description,
      });
      return { balance: made.balanceAfter, entryId: made.id };
    },
    reserve: (req) => reserve(req),
    settle: (req) => settle(req),
    async reserveMany(req) {
      checkBatch(req.items);
      const method = '/agentplatform.identity.v1.IdentityService/ReserveMany';
      const outcomes = await Promise.all(
        req.items.map((item) =>
          reserve(item).then((value) => ({ outcome: { $case: 'reserved' as const, value } }), failed(method)),
        ),
      );
      return { outcomes };
    },
    async settleMany(req) {
      checkBatch(req.items);
      const method = '/agentplatform.identity.v1.IdentityService/SettleMany';
      const outcomes = await Promise.all(
        req.items.map((item) =>
          settle(item).then((value) => ({ outcome: { $case: 'settled' as const, value } }), failed(method)),
        ),
      );
      return { outcomes };
    },
    async release(req) {
      return releaseCredits(deps, {
        tenantId: requireTenant(req.tenantId),
        operationId: req.operationId,
        description: req.description,
      });
    },
    async refund(req) {
      const made = await refundCredits(deps, {
        tenantId: requireTenant(req.tenantId),
        amount: req.amount,
        idempotencyKey: req.idempotencyKey,
        description: req.description,
      });
      return { balance: made.balanceAfter };
    },
    async getCredits(req) {
      const credits = await getCredits(deps, { tenantId: requireTenant(req.tenantId), limit: req.limit });
      return { balance: credits.balance, plan: credits.plan, entries: credits.entries.map(toLedgerEntry) };
    },
    async purchaseCredits(req) {
      const made = await purchaseCredits(deps, {
        tenantId: requireTenant(req.tenantId),
        userId: req.userId,
        credits: req.credits,
        idempotencyKey: req.idempotencyKey || randomUUID(),
      });
      return toPurchaseResponse(made);
    },
    async grantCredits(req) {
      const made = await grantCredits(deps, {
        tenantId: requireTenant(req.tenantId),
        credits: req.credits,
        idempotencyKey: req.idempotencyKey || randomUUID(),
      });
      return toPurchaseResponse(made);
    },
  };
}
