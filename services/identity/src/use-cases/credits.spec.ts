import type { EventEnvelope } from '@agentplatform/events';
import { ChainedLedger } from '../persistence/credit-ledger.js';
import { inMemoryIdentityDeps } from '../testing/in-memory.js';
import * as credits from './credits.js';
import { registerUser } from './register-user.js';

const account = { email: 'ada@example.com', password: 'correct horse', fullName: 'Ada', company: 'Acme' };

/** A tenant opened with the welcome credits (100) by registration; the low-credit line is 10. */
async function setup() {
  const { deps, fakes } = inMemoryIdentityDeps();
  const owner = await registerUser(deps, account);
  const tenantId = owner.tenantId;
  const balance = () => credits.getBalance(deps, { tenantId });
  const charge = (amount: number, idempotencyKey: string) =>
    credits.chargeCredits(deps, { tenantId, amount, idempotencyKey, description: 'chat' });
  const reserve = (amount: number, operationId: string) =>
    credits.reserveCredits(deps, { tenantId, amount, operationId, description: 'run' });
  const settle = (used: number, operationId: string) =>
    credits.settleCredits(deps, { tenantId, used, operationId, description: '' });
  const release = (operationId: string) => credits.releaseCredits(deps, { tenantId, operationId, description: '' });
  return { deps, fakes, owner, tenantId, balance, charge, reserve, settle, release };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const fieldsOf = (error: { details: Array<{ field: string }> }) => error.details.map((d) => d.field);

describe('charges and refunds', () => {
  it('charges an operation id once: a repeat answers the same entry and takes nothing more', async () => {
    const { charge, balance } = await setup();
    const first = await charge(30, 'op-1');
    const again = await charge(30, 'op-1');
    expect(first).toMatchObject({ type: 'charge', amount: -30, balanceAfter: 70 });
    expect(again).toEqual(first);
    await expect(balance()).resolves.toBe(70);
  });

  it('refuses a charge the balance cannot cover (402) and never goes below zero', async () => {
    const { charge, balance } = await setup();
    await expect(charge(101, 'too-much')).rejects.toMatchObject({ code: 'insufficient_credits' });
    await expect(balance()).resolves.toBe(100);
    await expect(charge(100, 'all')).resolves.toMatchObject({ balanceAfter: 0 });
    await expect(charge(1, 'one-more')).rejects.toMatchObject({ code: 'insufficient_credits' });
    await expect(balance()).resolves.toBe(0);
  });

  it('names the amount and the idempotency key when they are bad', async () => {
    const { deps, tenantId } = await setup();
    for (const [amount, idempotencyKey] of [
      [0, ''],
      [-5, 'x'.repeat(256)],
      [1.5, ''],
      [1_000_000_001, ''],
    ] as const) {
      const error = await credits
        .chargeCredits(deps, { tenantId, amount, idempotencyKey, description: '' })
        .catch((e) => e);
      expect(error.code).toBe('validation_error');
      expect(fieldsOf(error)).toEqual(['amount', 'idempotency_key']);
    }
  });

  it('answers not found for a tenant without an account', async () => {
    const { deps } = await setup();
    await expect(credits.getBalance(deps, { tenantId: 'ten_nope' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      credits.chargeCredits(deps, { tenantId: 'ten_nope', amount: 1, idempotencyKey: 'k', description: '' }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('refunds once per key', async () => {
    const { deps, tenantId, charge, balance } = await setup();
    await charge(40, 'op-1');
    const refund = () =>
      credits.refundCredits(deps, { tenantId, amount: 15, idempotencyKey: 'rf-1', description: 'sorry' });
    await refund();
    await refund();
    await expect(balance()).resolves.toBe(75);
  });
});

describe('the low-credit alert', () => {
  it('fires once per dip below the line, and again after a credit lifted the balance back', async () => {
    const { deps, fakes, tenantId, charge } = await setup();
    await charge(95, 'c1');
    await charge(1, 'c2');
    expect(fakes.outbox.types()).toEqual(['billing.credits.low']);
    expect(fakes.outbox.events[0]).toMatchObject({ tenant_id: tenantId, data: { balance: 5, threshold: 10 } });
    await credits.refundCredits(deps, { tenantId, amount: 20, idempotencyKey: 'rf', description: '' });
    await charge(20, 'c3');
    expect(fakes.outbox.types()).toEqual(['billing.credits.low', 'billing.credits.low']);
  });

  it('is not fired by a reservation, only by the settle that fixes the cost', async () => {
    const { fakes, reserve, settle } = await setup();
    await reserve(95, 'run-1');
    expect(fakes.outbox.types()).toEqual([]);
    await settle(95, 'run-1');
    expect(fakes.outbox.types()).toEqual(['billing.credits.low']);
  });
});

describe('purchases', () => {
  it('lets only the owner buy; fires billing.purchase.completed once per key', async () => {
    const { deps, fakes, owner, tenantId, balance } = await setup();
    const member = await registerUser(deps, { ...account, email: 'mem@example.com' });
    await fakes.tenants.insertMembership({ tenantId, userId: member.user.id, role: 'admin', createdAt: new Date() });
    const buy = (userId: string) =>
      credits.purchaseCredits(deps, { tenantId, userId, credits: 50, idempotencyKey: 'order-1' });
    await expect(buy(member.user.id)).rejects.toMatchObject({ code: 'forbidden' });
    const entry = await buy(owner.user.id);
    await buy(owner.user.id);
    await expect(balance()).resolves.toBe(150);
    const purchases = fakes.outbox.events.filter((e): e is EventEnvelope => e.type === 'billing.purchase.completed');
    expect(purchases.map((e) => e.data)).toEqual([
      expect.objectContaining({ purchase_id: entry.id, credits: 50, balance: 150 }),
      expect.objectContaining({ purchase_id: entry.id }),
    ]);
    // The event's id comes from the entry: the relay's consumers see the repeat as one purchase.
    expect(new Set(purchases.map((e) => e.id)).size).toBe(1);
  });

  it('refuses purchases outside self-service mode; an operator grant adds the same entry and event', async () => {
    const { deps, fakes, owner, tenantId, balance } = await setup();
    deps.settings.billingSelfService = false;
    await expect(
      credits.purchaseCredits(deps, { tenantId, userId: owner.user.id, credits: 50, idempotencyKey: 'order-1' }),
    ).rejects.toMatchObject({ code: 'forbidden' });
    await expect(balance()).resolves.toBe(100);
    const grant = () => credits.grantCredits(deps, { tenantId, credits: 70, idempotencyKey: 'grant-1' });
    const entry = await grant();
    await grant();
    expect(entry).toMatchObject({ type: 'purchase', amount: 70, balanceAfter: 170, description: 'Operator grant' });
    await expect(balance()).resolves.toBe(170);
    const events = fakes.outbox.events.filter((e): e is EventEnvelope => e.type === 'billing.purchase.completed');
    expect(new Set(events.map((e) => e.id))).toEqual(new Set([`evt_purchase_${entry.id}`]));
    await expect(
      credits.grantCredits(deps, { tenantId: 'ten_none', credits: 1, idempotencyKey: 'grant-2' }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('names credits when the amount is bad', async () => {
    const { deps, owner, tenantId } = await setup();
    const error = await credits
      .purchaseCredits(deps, {
        tenantId,
        userId: owner.user.id,
        credits: 0,
        idempotencyKey: 'o',
      })
      .catch((e) => e);
    expect(fieldsOf(error)).toEqual(['credits']);
  });
});

describe('reserve, settle and release', () => {
  it('holds the amount until settled, then gives back what the work did not use', async () => {
    const { deps, tenantId, reserve, settle, balance } = await setup();
    const before = Date.now();
    const reservation = await reserve(30, 'run-1');
    expect(reservation).toMatchObject({ reserved: 30, entry: { type: 'reserve', balanceAfter: 70 } });
    expect(reservation.expiresAt!.getTime()).toBeGreaterThanOrEqual(before + deps.settings.creditHoldTtlMs);
    await expect(balance()).resolves.toBe(70);
    await expect(settle(12, 'run-1')).resolves.toEqual({ balance: 88, charged: 12, returned: 18, released: false });
    // Once per reservation: a repeat answers what happened and moves nothing.
    await expect(settle(12, 'run-1')).resolves.toMatchObject({ balance: 88, charged: 12 });
    await expect(credits.getBalance(deps, { tenantId })).resolves.toBe(88);
  });

  it('reserves an operation id once, and refuses a reservation the balance cannot cover (402)', async () => {
    const { reserve, charge, balance } = await setup();
    await reserve(60, 'run-1');
    await expect(reserve(60, 'run-1')).resolves.toMatchObject({ reserved: 60 });
    await expect(balance()).resolves.toBe(40);
    await expect(reserve(41, 'run-2')).rejects.toMatchObject({ code: 'insufficient_credits' });
    await charge(5, 'op-1');
    await expect(reserve(5, 'op-1')).rejects.toMatchObject({ code: 'conflict' });
    await expect(balance()).resolves.toBe(35);
  });

  it('takes an overrun as far as the balance covers it, never below zero', async () => {
    const { reserve, settle, balance } = await setup();
    await reserve(10, 'run-1');
    await expect(settle(500, 'run-1')).resolves.toEqual({ balance: 0, charged: 100, returned: 0, released: false });
    await expect(balance()).resolves.toBe(0);
  });

  it('releases without charging; a settle after the release charges nothing', async () => {
    const { reserve, settle, release, balance } = await setup();
    await reserve(30, 'run-1');
    await expect(release('run-1')).resolves.toEqual({ balance: 100, charged: 0, returned: 30, released: true });
    await expect(settle(30, 'run-1')).resolves.toMatchObject({ charged: 0, released: true });
    await expect(balance()).resolves.toBe(100);
  });

  it('a settle after the reservation expired charges the use late, once', async () => {
    const { deps, reserve, settle, balance } = await setup();
    deps.settings.creditHoldTtlMs = 5;
    await reserve(30, 'run-1');
    await new Promise((resolve) => setTimeout(resolve, 10));
    await expect(credits.releaseExpiredHolds(deps)).resolves.toBe(1);
    await expect(balance()).resolves.toBe(100);

    await expect(settle(12, 'run-1')).resolves.toEqual({ balance: 88, charged: 12, returned: 0, released: false });
    await expect(settle(12, 'run-1')).resolves.toMatchObject({ balance: 88, charged: 12 });
    await expect(balance()).resolves.toBe(88);
  });

  it('a reservation whose write waited still lives its lifetime, so a late settle is charged', async () => {
    const { deps, fakes, reserve, settle } = await setup();
    deps.settings.creditHoldTtlMs = 20;
    // A write that waits 100 ms behind others before its entry is timed: a fresh ledger has no
    // chain end cached, so it reads the store's, which is slow here.
    deps.credits = new ChainedLedger(fakes.credits);
    const head = fakes.credits.head.bind(fakes.credits);
    jest.spyOn(fakes.credits, 'head').mockImplementation(async (tenantId) => {
      await sleep(100);
      return head(tenantId);
    });
    const { entry } = await reserve(30, 'run-1');
    // The sweep releases it once its lifetime has passed since its entry, not since the call.
    while ((await credits.releaseExpiredHolds(deps)) === 0) await sleep(2);
    expect(Date.now() - entry.createdAt.getTime()).toBeGreaterThanOrEqual(20);
    await expect(settle(12, 'run-1')).resolves.toEqual({ balance: 88, charged: 12, returned: 0, released: false });
  });

  it('a release after the settle leaves the settle standing', async () => {
    const { reserve, settle, release, balance } = await setup();
    await reserve(30, 'run-1');
    await settle(20, 'run-1');
    await expect(release('run-1')).resolves.toMatchObject({ charged: 20, released: false });
    await expect(balance()).resolves.toBe(80);
  });

  it("answers not found for an unknown reservation, another tenant's, or a charge's id", async () => {
    const { deps, reserve, charge, settle, release } = await setup();
    const other = await registerUser(deps, { ...account, email: 'bob@example.com' });
    await reserve(30, 'run-1');
    await charge(5, 'op-1');
    await expect(settle(1, 'nope')).rejects.toMatchObject({ code: 'not_found' });
    await expect(release('op-1')).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      credits.settleCredits(deps, { tenantId: other.tenantId, operationId: 'run-1', used: 1, description: '' }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(credits.getBalance(deps, { tenantId: other.tenantId })).resolves.toBe(100);
  });

  it('names used and operation_id when they are bad', async () => {
    const { deps, tenantId, reserve } = await setup();
    const settleError = await credits
      .settleCredits(deps, { tenantId, operationId: '', used: -1, description: '' })
      .catch((e) => e);
    expect(fieldsOf(settleError)).toEqual(['used']);
    const reserveError = await reserve(0, '').catch((e) => e);
    expect(fieldsOf(reserveError)).toEqual(['amount', 'operation_id']);
    const releaseError = await credits
      .releaseCredits(deps, { tenantId, operationId: '', description: '' })
      .catch((e) => e);
    expect(fieldsOf(releaseError)).toEqual(['operation_id']);
  });

  it('releases reservations past their expiry once, and leaves closed and open ones alone', async () => {
    const { deps, reserve, settle, balance } = await setup();
    await reserve(10, 'crashed');
    await reserve(20, 'settled');
    await settle(20, 'settled');
    await expect(credits.releaseExpiredHolds(deps, new Date())).resolves.toBe(0);
    const later = new Date(Date.now() + deps.settings.creditHoldTtlMs + 1);
    await expect(credits.releaseExpiredHolds(deps, later)).resolves.toBe(1);
    await expect(credits.releaseExpiredHolds(deps, later)).resolves.toBe(0);
    await expect(balance()).resolves.toBe(80);
  });
});

describe('getCredits', () => {
  it('answers the balance, the plan and the newest entries first, at most the limit', async () => {
    const { deps, tenantId, charge } = await setup();
    await charge(1, 'a');
    await charge(2, 'b');
    const answer = await credits.getCredits(deps, { tenantId, limit: 2 });
    expect(answer).toMatchObject({ balance: 97, plan: 'free' });
    expect(answer.entries.map((e) => e.idempotencyKey)).toEqual(['b', 'a']);
    const all = await credits.getCredits(deps, { tenantId, limit: 0 });
    expect(all.entries.map((e) => e.type)).toEqual(['charge', 'charge', 'grant']);
  });
});
