import { DomainError } from '@agentplatform/service-kit';
import { inMemoryAgentMemoryDeps } from '../testing/in-memory.js';
import { closings, TurnCredits } from './chat-credits.js';

const usage = (totalTokens: number) => ({ promptTokens: totalTokens, completionTokens: 0, totalTokens });

function setup(balance: number) {
  const { deps, fakes } = inMemoryAgentMemoryDeps();
  fakes.credits.balances.set('t1', balance);
  return { credits: new TurnCredits(deps, 't1', 'msg_1', 'test turn'), fakes };
}

describe('closings', () => {
  it('uses the reservations up in order; the last takes any excess', () => {
    const held = [
      { operationId: 'a', amount: 2 },
      { operationId: 'b', amount: 1 },
      { operationId: 'c', amount: 2 },
    ];
    expect(closings(held, 4).map((c) => c.amount)).toEqual([2, 1, 1]);
    expect(closings(held, 1).map((c) => c.amount)).toEqual([1, 0, 0]);
    expect(closings(held, 7).map((c) => c.amount)).toEqual([2, 1, 4]);
    expect(closings(held, 0).map((c) => c.amount)).toEqual([0, 0, 0]);
  });
});

describe('TurnCredits', () => {
  it('reserves before each round only what the turn may cost beyond what it holds, each under its own id', async () => {
    const { credits, fakes } = setup(10);
    await credits.reserveRound(300, 200);
    credits.used(usage(1000));
    // 1,000 used + 300 + 200 may cost 2 credits: one more.
    await expect(credits.tryReserveRound(300, 200)).resolves.toBe(true);
    credits.used(usage(100));
    // 1,100 + 300 + 200 still fits in 2: nothing more to reserve.
    await expect(credits.tryReserveRound(300, 200)).resolves.toBe(true);
    expect(credits.reservations).toEqual([
      { operationId: 'chat:msg_1', amount: 1 },
      { operationId: 'chat:msg_1:1', amount: 1 },
    ]);
    expect(fakes.credits.balance('t1')).toBe(8);
  });

  it('answers false when the balance cannot cover the next round, and throws any other failure', async () => {
    const { credits, fakes } = setup(1);
    await credits.reserveRound(300, 200);
    credits.used(usage(1000));
    await expect(credits.tryReserveRound(300, 200)).resolves.toBe(false);
    expect(fakes.credits.balance('t1')).toBe(0);

    fakes.credits.unavailable = true;
    await expect(credits.tryReserveRound(300, 200)).rejects.toBeInstanceOf(DomainError);
  });

  it('a stopped turn is charged the rounds that finished; the rest is given back', async () => {
    const { credits, fakes } = setup(10);
    await credits.reserveRound(300, 200);
    credits.used(usage(1000));
    await credits.tryReserveRound(300, 200);
    await credits.closeFailed('deadline');
    expect(fakes.credits.settled.get('chat:msg_1')).toBe(1);
    expect(fakes.credits.released).toEqual(new Set(['chat:msg_1:1']));
    expect(fakes.credits.held.size).toBe(0);
    expect(fakes.credits.balance('t1')).toBe(9);
  });

  it('a turn that failed before any round finished is charged nothing', async () => {
    const { credits, fakes } = setup(10);
    await credits.reserveRound(300, 200);
    await credits.closeFailed('service_unavailable');
    expect(fakes.credits.released).toEqual(new Set(['chat:msg_1']));
    expect(fakes.credits.balance('t1')).toBe(10);
  });
});
