import { DomainError } from '@agentplatform/service-kit';
import { AnonymousLimiter } from './anonymous-limit.js';

describe('AnonymousLimiter', () => {
  it('allows a burst, then refuses with a retry hint, per address', () => {
    const limiter = new AnonymousLimiter({ perMinute: 60, burst: 20, maxAddresses: 10 });
    for (let i = 0; i < 20; i++) limiter.take('198.51.100.1');
    let refused: unknown;
    try {
      limiter.take('198.51.100.1');
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'rate_limit_exceeded', retryAfter: 1 });
    expect(() => limiter.check('198.51.100.1')).toThrow(DomainError);
    // Another address has its own budget.
    expect(() => limiter.take('198.51.100.2')).not.toThrow();
  });

  it('refills at the sustained rate', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    try {
      const limiter = new AnonymousLimiter({ perMinute: 60, burst: 2, maxAddresses: 10 });
      limiter.take('a');
      limiter.take('a');
      expect(() => limiter.check('a')).toThrow(DomainError);
      jest.advanceTimersByTime(1_000);
      expect(() => limiter.take('a')).not.toThrow();
      expect(() => limiter.check('a')).toThrow(DomainError);
    } finally {
      jest.useRealTimers();
    }
  });

  it('tracks at most maxAddresses, forgetting the least recently seen first', () => {
    const limiter = new AnonymousLimiter({ perMinute: 60, burst: 1, maxAddresses: 2 });
    limiter.take('a');
    limiter.take('b');
    limiter.take('c');
    // 'a' was pushed out by 'c': it starts again with a full burst; 'c' is still spent.
    expect(() => limiter.take('a')).not.toThrow();
    expect(() => limiter.check('c')).toThrow(DomainError);
  });
});
