import { chainEntryId, planLinks, type Movement } from './credit-chain.js';

const now = new Date('2026-01-01T00:00:00Z');

function movement(key: string, amount: number, whenShort: Movement['whenShort'] = 'refuse'): Movement {
  return { key, type: amount < 0 ? 'charge' : 'purchase', amount, description: '', whenShort };
}

describe('planLinks', () => {
  it('links entries after the head, each balance the previous one plus its amount', () => {
    const plan = planLinks('ten_1', { seq: 4, balance: 10 }, [movement('a', -3), movement('b', 5)], now);
    expect(plan.entries.map((e) => [e.id, e.seq, e.amount, e.balanceAfter])).toEqual([
      [chainEntryId('ten_1', 5), 5, -3, 7],
      [chainEntryId('ten_1', 6), 6, 5, 12],
    ]);
    expect(plan.head).toEqual({ seq: 6, balance: 12 });
  });

  it('refuses what the balance cannot cover without taking a link, and goes on with the rest', () => {
    const plan = planLinks(
      'ten_1',
      { seq: 1, balance: 1 },
      [movement('a', -1), movement('b', -1), movement('c', 2)],
      now,
    );
    expect(plan.outcomes[1]).toEqual({ refused: true });
    expect(plan.entries.map((e) => [e.idempotencyKey, e.seq, e.balanceAfter])).toEqual([
      ['a', 2, 0],
      ['c', 3, 2],
    ]);
  });

  it('caps a movement that may not be refused at what the balance covers, never below zero', () => {
    const plan = planLinks('ten_1', { seq: 1, balance: 3 }, [movement('a', -5, 'cap')], now);
    expect(plan.entries[0]).toMatchObject({ amount: -3, balanceAfter: 0 });
    const empty = planLinks('ten_1', { seq: 1, balance: 0 }, [movement('b', -5, 'cap')], now);
    expect(Object.is(empty.entries[0]!.amount, 0)).toBe(true);
  });

  it('gives a key repeated in one batch the first entry, written once', () => {
    const plan = planLinks('ten_1', { seq: 0, balance: 5 }, [movement('a', -2), movement('a', -2)], now);
    expect(plan.entries).toHaveLength(1);
    expect(plan.outcomes[1]).toEqual({ entry: plan.entries[0], fresh: false });
    expect(plan.head.balance).toBe(3);
  });
});
