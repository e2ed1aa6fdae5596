import { createEvent, type EventEnvelope } from '@agentplatform/events';
import {
  ForbiddenError,
  InsufficientCreditsError,
  NotFoundError,
  ValidationError,
  isDuplicateKeyError,
  newId,
} from '@agentplatform/service-kit';
import type { ClientSession } from 'mongoose';
import type { LedgerEntry, LedgerEntryType } from '../persistence/credit.repository.js';
import type { IdentityDeps } from './identity-deps.js';

export interface Movement {
  tenantId: string;
  amount: number;
  idempotencyKey: string;
  description: string;
}

const MAX_AMOUNT = 1_000_000_000;

function checkMovement(movement: Movement, amountField = 'amount'): void {
  const issues = [];
  if (!Number.isSafeInteger(movement.amount) || movement.amount < 1 || movement.amount > MAX_AMOUNT) {
    issues.push({ field: amountField, message: `must be an integer from 1 to ${MAX_AMOUNT}` });
  }
  if (!movement.idempotencyKey) issues.push({ field: 'idempotency_key', message: 'is required' });
  if (movement.idempotencyKey.length > 255)
    issues.push({ field: 'idempotency_key', message: 'must be at most 255 characters' });
  if (issues.length > 0) throw new ValidationError(issues);
}

export async function getBalance(deps: IdentityDeps, tenantId: string): Promise<number> {
  const balance = await deps.credits.balance(tenantId);
  if (balance === undefined) throw new NotFoundError('Tenant');
  return balance;
}

/**
 * Moves credits once per idempotency key. The balance changes by one atomic `$inc` (guarded by a
 * floor for charges); the ledger entry's unique (tenant, key) index settles a race between two
 * requests with the same key: the loser undoes its change and answers with the winner's entry.
 * Where MongoDB supports transactions the whole movement, events included, commits as one.
 */
async function move(
  deps: IdentityDeps,
  type: LedgerEntryType,
  movement: Movement,
  options: { floor?: number },
  eventsFor: (entry: LedgerEntry, session?: ClientSession) => Promise<EventEnvelope[]>,
): Promise<LedgerEntry> {
  // Concurrent retries of one movement in this process share its outcome. Without transactions
  // (the standalone local stand-in) they would otherwise each move the balance before the unique
  // index stops all but one, and the winner's entry would record a balance_after that counts the
  // losers' moves, undone a moment later.
  const key = `${movement.tenantId}\u0000${movement.idempotencyKey}`;
  const running = inFlight.get(key);
  if (running) return running;
  const outcome = moveOnce(deps, type, movement, options, eventsFor);
  inFlight.set(key, outcome);
  try {
    return await outcome;
  } finally {
    inFlight.delete(key);
  }
}

/** Movements being made by this process, by tenant and idempotency key. */
const inFlight = new Map<string, Promise<LedgerEntry>>();

async function moveOnce(
  deps: IdentityDeps,
  type: LedgerEntryType,
  movement: Movement,
  options: { floor?: number },
  eventsFor: (entry: LedgerEntry, session?: ClientSession) => Promise<EventEnvelope[]>,
): Promise<LedgerEntry> {
  const previous = await deps.credits.findByKey(movement.tenantId, movement.idempotencyKey);
  if (previous) return previous;
  const delta = type === 'charge' ? -movement.amount : movement.amount;
  try {
    return await deps.outbox.run(async (session) => {
      const balance = await deps.credits.adjust(movement.tenantId, delta, options.floor, session);
      if (balance === undefined) {
        if ((await deps.credits.balance(movement.tenantId)) === undefined) throw new NotFoundError('Tenant');
        throw new InsufficientCreditsError();
      }
      const entry: LedgerEntry = {
        id: newId('led'),
        tenantId: movement.tenantId,
        type,
        amount: delta,
        balanceAfter: balance,
        idempotencyKey: movement.idempotencyKey,
        description: movement.description,
        createdAt: new Date(),
      };
      try {
        await deps.credits.insertEntry(entry, session);
      } catch (error) {
        // Without a transaction nothing rolls the $inc back for us.
        if (isDuplicateKeyError(error) && !session) await deps.credits.adjust(movement.tenantId, -delta, undefined);
        throw error;
      }
      return { result: entry, events: await eventsFor(entry, session) };
    });
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
    const winner = await deps.credits.findByKey(movement.tenantId, movement.idempotencyKey);
    if (!winner) throw error;
    return winner;
  }
}

/** Re-arms the low-credit alert once a credit lifts the balance back to the threshold. */
async function rearm(deps: IdentityDeps, entry: LedgerEntry): Promise<void> {
  if (entry.balanceAfter >= deps.settings.lowCreditThreshold) await deps.credits.armLowAlert(entry.tenantId);
}

export async function chargeCredits(
  deps: IdentityDeps,
  movement: Movement & { allowNegative: boolean },
): Promise<LedgerEntry> {
  checkMovement(movement);
  const threshold = deps.settings.lowCreditThreshold;
  return move(deps, 'charge', movement, { floor: movement.allowNegative ? undefined : 0 }, async (entry, session) => {
    // Fires once per dip: the account's armed flag is flipped by exactly one charge.
    if (entry.balanceAfter < threshold && (await deps.credits.disarmLowAlert(entry.tenantId, session))) {
      return [createEvent('billing.credits.low', entry.tenantId, { balance: entry.balanceAfter, threshold })];
    }
    return [];
  });
}

export async function refundCredits(deps: IdentityDeps, movement: Movement): Promise<LedgerEntry> {
  checkMovement(movement);
  const entry = await move(deps, 'refund', movement, {}, async () => []);
  await rearm(deps, entry);
  return entry;
}

/** An owner buys credits; fires billing.purchase.completed. */
export async function purchaseCredits(
  deps: IdentityDeps,
  input: { tenantId: string; userId: string; credits: number; idempotencyKey: string },
): Promise<LedgerEntry> {
  const membership = await deps.tenants.findMembership(input.tenantId, input.userId);
  if (membership?.role !== 'owner') throw new ForbiddenError('Only the tenant owner can purchase credits');
  const movement = {
    tenantId: input.tenantId,
    amount: input.credits,
    idempotencyKey: `purchase:${input.idempotencyKey}`,
    description: 'Credit purchase',
  };
  checkMovement(movement, 'credits');
  const entry = await move(deps, 'purchase', movement, {}, async (made) => [
    createEvent('billing.purchase.completed', made.tenantId, {
      purchase_id: made.id,
      credits: made.amount,
      balance: made.balanceAfter,
    }),
  ]);
  await rearm(deps, entry);
  return entry;
}

export async function getCredits(
  deps: IdentityDeps,
  tenantId: string,
  limit: number,
): Promise<{ balance: number; plan: string; entries: LedgerEntry[] }> {
  const [balance, tenant] = await Promise.all([getBalance(deps, tenantId), deps.tenants.findTenant(tenantId)]);
  const entries = await deps.credits.recent(tenantId, Math.min(Math.max(limit || 20, 1), 100));
  return { balance, plan: tenant?.plan ?? 'free', entries };
}
