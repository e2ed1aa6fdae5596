import { createEvent, type EventEnvelope } from '@agentplatform/events/catalogue';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  ValidationError,
  isDuplicateKeyError,
  type FieldIssue,
} from '@agentplatform/service-kit';
import type { LedgerEntry, Movement } from '../domain/credit-chain.js';
import type { UseCaseDeps } from './deps.js';

export interface MovementInput {
  tenantId: string;
  amount: number;
  idempotencyKey: string;
  description: string;
}

const MAX_AMOUNT = 1_000_000_000;
const MAX_KEY = 255;

function checkAmount(issues: FieldIssue[], value: number, field: string, min = 1): void {
  if (!Number.isSafeInteger(value) || value < min || value > MAX_AMOUNT) {
    issues.push({ field, message: `must be an integer from ${min} to ${MAX_AMOUNT}` });
  }
}

function checkKey(issues: FieldIssue[], value: string, field: string): void {
  if (!value) issues.push({ field, message: 'is required' });
  else if (value.length > MAX_KEY) issues.push({ field, message: `must be at most ${MAX_KEY} characters` });
}

function throwIfAny(issues: FieldIssue[]): void {
  if (issues.length > 0) throw new ValidationError(issues);
}

function checkMovement(input: MovementInput, amountField = 'amount'): void {
  const issues: FieldIssue[] = [];
  checkAmount(issues, input.amount, amountField);
  checkKey(issues, input.idempotencyKey, 'idempotency_key');
  throwIfAny(issues);
}

/** A reservation's closing entry (settle or release) has this key; one per reservation. */
function closeKey(operationId: string): string {
  return `${operationId}:close`;
}

/**
 * Stores events derived from an entry. Their ids come from the entry, so a retry that finds the
 * entry already written stores them again harmlessly (and the relay's consumers dedupe by id).
 */
async function publish(deps: UseCaseDeps, events: EventEnvelope[]): Promise<void> {
  try {
    await deps.outbox.publish(events);
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
}

/**
 * billing.credits.low fires once per dip: the account's armed flag is flipped by one entry. Only
 * entries that fix a cost count (a charge, a settle): a reservation's dip is undone by its settle
 * or release a moment later and would re-arm nothing.
 */
async function alertIfLow(deps: UseCaseDeps, entry: LedgerEntry): Promise<void> {
  const threshold = deps.settings.lowCreditThreshold;
  if (!['charge', 'settle'].includes(entry.type) || entry.balanceAfter >= threshold) return;
  if (!(await deps.credits.disarmLowAlert(entry.tenantId))) return;
  await publish(deps, [
    {
      ...createEvent('billing.credits.low', entry.tenantId, { balance: entry.balanceAfter, threshold }),
      id: `evt_low_${entry.id}`,
    },
  ]);
}

/** Re-arms the low-credit alert once a credit lifts the balance back to the threshold. */
async function rearm(deps: UseCaseDeps, entry: LedgerEntry): Promise<void> {
  if (entry.balanceAfter >= deps.settings.lowCreditThreshold) await deps.credits.armLowAlert(entry.tenantId);
}

export async function getBalance(deps: Pick<UseCaseDeps, 'credits'>, input: { tenantId: string }): Promise<number> {
  const head = await deps.credits.head(input.tenantId);
  if (!head) throw new NotFoundError('Tenant');
  return head.balance;
}

/** Takes a known cost; insufficient_credits when the balance cannot cover it. */
export async function chargeCredits(deps: UseCaseDeps, input: MovementInput): Promise<LedgerEntry> {
  checkMovement(input);
  const entry = await deps.credits.write(input.tenantId, {
    key: input.idempotencyKey,
    type: 'charge',
    amount: -input.amount,
    description: input.description,
    whenShort: 'refuse',
  });
  await alertIfLow(deps, entry);
  return entry;
}

export async function refundCredits(deps: UseCaseDeps, input: MovementInput): Promise<LedgerEntry> {
  checkMovement(input);
  const entry = await deps.credits.write(input.tenantId, {
    key: input.idempotencyKey,
    type: 'refund',
    amount: input.amount,
    description: input.description,
    whenShort: 'refuse',
  });
  await rearm(deps, entry);
  return entry;
}

/**
 * Credits bought or granted: a purchase entry and its billing.purchase.completed event, keyed by
 * the caller's idempotency key so a retry never adds twice.
 */
async function addPurchased(
  deps: UseCaseDeps,
  input: { tenantId: string; credits: number; ledgerKey: string; description: string },
): Promise<LedgerEntry> {
  const movement = {
    tenantId: input.tenantId,
    amount: input.credits,
    idempotencyKey: input.ledgerKey,
    description: input.description,
  };
  checkMovement(movement, 'credits');
  const entry = await deps.credits.write(input.tenantId, {
    key: movement.idempotencyKey,
    type: 'purchase',
    amount: movement.amount,
    description: movement.description,
    whenShort: 'refuse',
  });
  await publish(deps, [
    {
      ...createEvent('billing.purchase.completed', entry.tenantId, {
        purchase_id: entry.id,
        credits: entry.amount,
        balance: entry.balanceAfter,
      }),
      id: `evt_purchase_${entry.id}`,
    },
  ]);
  await rearm(deps, entry);
  return entry;
}

/**
 * An owner buys credits; fires billing.purchase.completed. Only in self-service mode: credits are
 * bought, not minted (docs/design.md section 5), and where no payment stands behind a purchase
 * they come from an operator grant instead.
 */
export async function purchaseCredits(
  deps: UseCaseDeps,
  input: { tenantId: string; userId: string; credits: number; idempotencyKey: string },
): Promise<LedgerEntry> {
  if (!deps.settings.billingSelfService) {
    throw new ForbiddenError('Credits are not sold to tenants on this platform; an operator grants them');
  }
  const membership = await deps.tenants.findMembership(input.tenantId, input.userId);
  if (membership?.role !== 'owner') throw new ForbiddenError('Only the tenant owner can purchase credits');
  return addPurchased(deps, {
    tenantId: input.tenantId,
    credits: input.credits,
    ledgerKey: `purchase:${input.idempotencyKey}`,
    description: 'Credit purchase',
  });
}

/**
 * An operator grants a tenant credits: the same entry and event as a purchase, under keys of
 * their own (`grant:`), so an operator's key never meets a tenant's purchase key.
 */
export async function grantCredits(
  deps: UseCaseDeps,
  input: { tenantId: string; credits: number; idempotencyKey: string },
): Promise<LedgerEntry> {
  if (!(await deps.tenants.findTenant(input.tenantId))) throw new NotFoundError('Tenant');
  return addPurchased(deps, {
    tenantId: input.tenantId,
    credits: input.credits,
    ledgerKey: `grant:${input.idempotencyKey}`,
    description: 'Operator grant',
  });
}

export interface Reservation {
  entry: LedgerEntry;
  reserved: number;
  expiresAt?: Date;
}

/**
 * Holds credits for work whose cost is known only afterwards (a chat): the reservation is an
 * entry taking the estimate from the balance, refused when the balance cannot cover it. It stays
 * open until Settle or Release closes it, or the expiry sweep releases it.
 */
export async function reserveCredits(
  deps: UseCaseDeps,
  input: { tenantId: string; operationId: string; amount: number; description: string },
): Promise<Reservation> {
  const issues: FieldIssue[] = [];
  checkAmount(issues, input.amount, 'amount');
  checkKey(issues, input.operationId, 'operation_id');
  throwIfAny(issues);
  const entry = await deps.credits.write(input.tenantId, {
    key: input.operationId,
    type: 'reserve',
    amount: -input.amount,
    description: input.description,
    whenShort: 'refuse',
    holdMs: deps.settings.creditHoldTtlMs,
  });
  if (entry.type !== 'reserve') throw new ConflictError('This operation id was used by another kind of movement');
  return { entry, reserved: -entry.amount, expiresAt: entry.holdExpiresAt };
}

export interface Settlement {
  balance: number;
  charged: number;
  returned: number;
  /** The reservation had been released before: nothing was charged. */
  released: boolean;
}

async function findHold(deps: UseCaseDeps, tenantId: string, operationId: string): Promise<LedgerEntry> {
  const issues: FieldIssue[] = [];
  checkKey(issues, operationId, 'operation_id');
  throwIfAny(issues);
  const hold = await deps.credits.findHold(tenantId, operationId);
  if (!hold || hold.type !== 'reserve') throw new NotFoundError('Reservation');
  return hold;
}

function settlement(hold: LedgerEntry, close: LedgerEntry): Settlement {
  const reserved = -hold.amount;
  if (close.type === 'release') return { balance: close.balanceAfter, charged: 0, returned: reserved, released: true };
  return {
    balance: close.balanceAfter,
    charged: reserved - close.amount,
    returned: Math.max(close.amount, 0),
    released: false,
  };
}

async function closeHold(
  deps: UseCaseDeps,
  hold: LedgerEntry,
  movement: Omit<Movement, 'key' | 'whenShort'>,
): Promise<Settlement> {
  return settlement(hold, await writeClose(deps, hold, movement));
}

/** Writes (or finds) the reservation's closing entry. */
async function writeClose(
  deps: UseCaseDeps,
  hold: LedgerEntry,
  movement: Omit<Movement, 'key' | 'whenShort'>,
): Promise<LedgerEntry> {
  const close = await deps.credits.write(hold.tenantId, {
    ...movement,
    key: closeKey(hold.idempotencyKey),
    whenShort: 'cap',
  });
  // The closing entry is what counts; this only spares the expiry sweep a look (it would find
  // the closing entry and stop there too).
  await deps.credits.closeHold(hold);
  await alertIfLow(deps, close);
  return close;
}

/**
 * Closes a reservation with what the work used: gives back the rest, or, when the work used
 * more than it reserved, takes the difference as far as the balance covers it. Once per
 * reservation: a repeat answers what happened. A settle after the reservation expired charges
 * the use late (`chargeLate`), once; after a release in time, it charges nothing.
 */
export async function settleCredits(
  deps: UseCaseDeps,
  input: { tenantId: string; operationId: string; used: number; description: string },
): Promise<Settlement> {
  const issues: FieldIssue[] = [];
  checkAmount(issues, input.used, 'used', 0);
  throwIfAny(issues);
  const hold = await findHold(deps, input.tenantId, input.operationId);
  const reserved = -hold.amount;
  const description = input.description || `Used ${input.used} of ${reserved} reserved credits`;
  const close = await writeClose(deps, hold, { type: 'settle', amount: reserved - input.used, description });
  if (close.type === 'release' && expired(deps, hold, close) && input.used > 0) {
    return chargeLate(deps, hold, input.used, description);
  }
  return settlement(hold, close);
}

/**
 * Whether the reservation was released because it expired (by the sweep, or by its holder only
 * after its lifetime), not because its holder gave it back in time. Measured from the entries'
 * times: a closed reservation's expiry mark is removed.
 */
function expired(deps: UseCaseDeps, hold: LedgerEntry, close: LedgerEntry): boolean {
  return close.createdAt.getTime() - hold.createdAt.getTime() >= deps.settings.creditHoldTtlMs;
}

/** A late charge's key: one per reservation, so a repeated settle never charges twice. */
function lateKey(operationId: string): string {
  return `${operationId}:late`;
}

/**
 * The work was done, but its reservation expired before the settle arrived (its holder could not
 * reach identity for longer than CREDIT_HOLD_TTL_SECONDS): the use is charged all the same, as
 * far as the balance covers it, so no work that was done is left uncharged (docs/design.md
 * section 5). A reservation its holder released in time stays uncharged: the work failed.
 */
async function chargeLate(
  deps: UseCaseDeps,
  hold: LedgerEntry,
  used: number,
  description: string,
): Promise<Settlement> {
  const entry = await deps.credits.write(hold.tenantId, {
    key: lateKey(hold.idempotencyKey),
    type: 'charge',
    amount: -used,
    description: `${description} (charged after its reservation was released)`,
    whenShort: 'cap',
  });
  await alertIfLow(deps, entry);
  return { balance: entry.balanceAfter, charged: -entry.amount, returned: 0, released: false };
}

/** Closes a reservation without charging anything (the work failed or never ran). */
export async function releaseCredits(
  deps: UseCaseDeps,
  input: { tenantId: string; operationId: string; description: string },
): Promise<Settlement> {
  const hold = await findHold(deps, input.tenantId, input.operationId);
  return closeHold(deps, hold, {
    type: 'release',
    amount: -hold.amount,
    description: input.description || `Released ${-hold.amount} reserved credits`,
  });
}

/**
 * Releases reservations that outlived their expiry (their holder crashed or gave up). Answers
 * how many it closed. Safe on every replica at once: each reservation closes once.
 */
export async function releaseExpiredHolds(deps: UseCaseDeps, now = new Date(), batch = 100): Promise<number> {
  let closed = 0;
  for (const hold of await deps.credits.expiredHolds(now, batch)) {
    await closeHold(deps, hold, {
      type: 'release',
      amount: -hold.amount,
      description: `Reservation expired: released ${-hold.amount} credits`,
    });
    closed++;
  }
  return closed;
}

/** The balance and the newest entries, read together: the balance is the newest entry's. */
export async function getCredits(
  deps: UseCaseDeps,
  input: { tenantId: string; limit: number },
): Promise<{ balance: number; plan: string; entries: LedgerEntry[] }> {
  const { tenantId, limit } = input;
  const [entries, tenant] = await Promise.all([
    deps.credits.recent(tenantId, Math.min(Math.max(limit || 20, 1), 100)),
    deps.tenants.findTenant(tenantId),
  ]);
  const newest = entries[0];
  const balance = newest?.seq !== undefined ? newest.balanceAfter : await getBalance(deps, { tenantId });
  return { balance, plan: tenant?.plan ?? 'free', entries };
}
