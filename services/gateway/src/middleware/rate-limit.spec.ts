import { RateLimiterMemory } from 'rate-limiter-flexible';
import { GroupedLimiter } from './rate-limit';

describe('GroupedLimiter', () => {
  it('gives each of a group of concurrent requests the outcome of separate counts in arrival order', async () => {
    const limiter = new GroupedLimiter(new RateLimiterMemory({ points: 3, duration: 60 }));
    const outcomes = await Promise.all([1, 2, 3, 4, 5].map(() => limiter.take('wf_1')));
    expect(outcomes.map((o) => o.ok)).toEqual([true, true, true, false, false]);
    expect(outcomes.map((o) => o.res.remainingPoints)).toEqual([2, 1, 0, 0, 0]);
    expect(outcomes.map((o) => o.res.consumedPoints)).toEqual([1, 2, 3, 4, 5]);
    const next = await limiter.take('wf_1');
    expect(next.ok).toBe(false);
    expect(next.res.msBeforeNext).toBeGreaterThan(0);
  });

  it('counts keys separately', async () => {
    const limiter = new GroupedLimiter(new RateLimiterMemory({ points: 1, duration: 60 }));
    const [a, b, a2] = await Promise.all([limiter.take('a'), limiter.take('b'), limiter.take('a')]);
    expect([a.ok, b.ok, a2.ok]).toEqual([true, true, false]);
  });
});
