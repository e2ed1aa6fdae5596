import type { PendingItem } from '../domain/memory.js';
import { FairCandidates, itemCost, MAX_ITEM_COST } from './fair-candidates.js';

/** `count` waiting items of one tenant, each `length` characters long. */
function items(tenantId: string, count: number, length: number, from = 0): PendingItem[] {
  return Array.from({ length: count }, (_, n) => ({ id: `${tenantId}_${from + n}`, tenantId, length, rev: 'r' }));
}

const LONG = 1_900; // chat-local's episodic memories: cut to 128 word pieces
const SHORT = 60; // a bench add: 17 word pieces

/** Model work per tenant in a batch. */
function work(batch: PendingItem[]): Map<string, number> {
  const byTenant = new Map<string, number>();
  for (const item of batch) byTenant.set(item.tenantId, (byTenant.get(item.tenantId) ?? 0) + itemCost(item.length));
  return byTenant;
}

describe('fair candidates', () => {
  it('estimates an item by its word pieces, up to what the model keeps', () => {
    expect(itemCost(SHORT)).toBe(17);
    expect(itemCost(LONG)).toBe(MAX_ITEM_COST);
    expect(itemCost(0)).toBe(2);
  });

  it('gives each waiting tenant an equal share of the model work, not of the items', () => {
    const candidates = new FairCandidates();
    candidates.add([...items('ten_long', 100, LONG), ...items('ten_short', 2_000, SHORT)]);
    let longWork = 0;
    let shortWork = 0;
    let longItems = 0;
    let shortItems = 0;
    // 100 batches: both tenants wait throughout (the short one's items would last 130).
    while (longItems < 100) {
      const batch = candidates.take(16, 4 * MAX_ITEM_COST);
      const byTenant = work(batch);
      longWork += byTenant.get('ten_long') ?? 0;
      shortWork += byTenant.get('ten_short') ?? 0;
      longItems += batch.filter((i) => i.tenantId === 'ten_long').length;
      shortItems += batch.filter((i) => i.tenantId === 'ten_short').length;
      // Never more apart than one long item while both wait.
      expect(Math.abs(longWork - shortWork)).toBeLessThanOrEqual(MAX_ITEM_COST);
    }
    // The short texts' tenant got about 7.5 items for each long one (128 word pieces against 17).
    expect(shortItems / longItems).toBeCloseTo(MAX_ITEM_COST / itemCost(SHORT), 0);
  });

  it('puts a tenant that starts waiting into the next batch, however long the others have waited', () => {
    const candidates = new FairCandidates();
    candidates.add(items('ten_noisy', 500, LONG));
    for (let n = 0; n < 20; n++) candidates.take(16, 4 * MAX_ITEM_COST);
    candidates.add(items('ten_quiet', 1, SHORT));
    expect(candidates.tenants()).toEqual(['ten_noisy', 'ten_quiet']);
    const next = candidates.take(16, 4 * MAX_ITEM_COST);
    expect(next.map((i) => i.id)).toContain('ten_quiet_0');
    // It started level with the noisy tenant, not with a credit for the time it did not wait.
    const after = candidates.take(16, 4 * MAX_ITEM_COST);
    expect(after.every((i) => i.tenantId === 'ten_noisy')).toBe(true);
    expect(candidates.tenants()).toEqual(['ten_noisy']);
  });

  it('keeps a batch within its budget of word pieces, taking its first item whatever it costs', () => {
    const candidates = new FairCandidates();
    candidates.add(items('ten_a', 10, LONG));
    expect(candidates.take(16, 4 * MAX_ITEM_COST)).toHaveLength(4);
    expect(candidates.take(16, 10)).toHaveLength(1);
    candidates.add(items('ten_b', 40, SHORT));
    // ten_b is behind on work: it fills what ten_a's next long item would not fit in.
    const batch = candidates.take(16, 300);
    expect(work(batch).get('ten_b')).toBeGreaterThan(0);
    expect([...work(batch).values()].reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(300);
    expect(candidates.size).toBe(5 + 40 - batch.length);
  });

  it("takes a tenant's items in the order they were found and forgets a tenant once its queue is empty", () => {
    const candidates = new FairCandidates();
    candidates.add(items('ten_a', 3, SHORT));
    candidates.add(items('ten_a', 2, SHORT, 3));
    expect(candidates.take(16, 4 * MAX_ITEM_COST).map((i) => i.id)).toEqual([
      'ten_a_0',
      'ten_a_1',
      'ten_a_2',
      'ten_a_3',
      'ten_a_4',
    ]);
    expect(candidates.size).toBe(0);
    expect(candidates.tenants()).toEqual([]);
    expect(candidates.take(16, 4 * MAX_ITEM_COST)).toEqual([]);
  });

  it("holds a bounded number of candidates, letting go of the longest queues' ends", () => {
    const candidates = new FairCandidates();
    for (let t = 0; t < 12; t += 1) candidates.add(items(`ten_${t}`, 512, LONG));
    candidates.add(items('ten_quiet', 1, SHORT));
    candidates.trim(4_096);
    expect(candidates.size).toBe(4_096);
    // Every tenant keeps its place, the quiet one with its single item.
    expect(candidates.tenants()).toHaveLength(13);
    // Thirteen tenants level, four long texts a batch: the quiet item is in the fourth at the latest.
    const taken = Array.from({ length: 4 }, () => candidates.take(16, 4 * MAX_ITEM_COST)).flat();
    expect(taken.map((i) => i.tenantId)).toContain('ten_quiet');
    // Never below one per tenant, whatever the bound.
    candidates.trim(0);
    expect(candidates.size).toBe(12);
    expect(candidates.tenants()).toHaveLength(12);
  });
});
