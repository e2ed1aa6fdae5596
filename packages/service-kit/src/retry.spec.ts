import { backoffDelay, parseRetryAfter, retry, withJitter } from './retry';

describe('backoffDelay', () => {
  it('doubles from the base up to the cap', () => {
    const delays = [0, 1, 2, 3, 4, 5].map((n) => backoffDelay(n, { baseMs: 250, maxMs: 5_000 }));
    expect(delays).toEqual([250, 500, 1_000, 2_000, 4_000, 5_000]);
  });

  it('adds jitter, never subtracts it', () => {
    expect(backoffDelay(1, { baseMs: 100, jitter: 0.25, random: () => 0 })).toBe(200);
    expect(backoffDelay(1, { baseMs: 100, jitter: 0.25, random: () => 0.999 })).toBe(250);
    expect(withJitter(1_000, 0.1, () => 0.5)).toBe(1_050);
  });
});

describe('retry', () => {
  it('retries a failing call until it succeeds, within the attempts', async () => {
    let calls = 0;
    const result = await retry(
      async () => {
        if (++calls < 3) throw new Error('busy');
        return 'ok';
      },
      { attempts: 3, baseMs: 1 },
    );
    expect([result, calls]).toEqual(['ok', 3]);
  });

  it('throws the last failure once the attempts are used up', async () => {
    let calls = 0;
    await expect(
      retry(
        async (attempt) => {
          calls++;
          throw new Error(`failure ${attempt}`);
        },
        { attempts: 4, baseMs: 1 },
      ),
    ).rejects.toThrow('failure 4');
    expect(calls).toBe(4);
  });

  it('gives up at once on a failure that is not retryable', async () => {
    let calls = 0;
    const refused = Object.assign(new Error('no credits'), { code: 'insufficient_credits' });
    await expect(
      retry(
        async () => {
          calls++;
          throw refused;
        },
        { attempts: 5, baseMs: 1, retryable: (e) => (e as { code?: string }).code !== 'insufficient_credits' },
      ),
    ).rejects.toBe(refused);
    expect(calls).toBe(1);
  });

  it('waits what a failure asks for (Retry-After) instead of the backoff, within maxMs', async () => {
    const waits: number[] = [];
    let last = Date.now();
    await retry(
      async (attempt) => {
        const now = Date.now();
        if (attempt > 1) waits.push(now - last);
        last = now;
        if (attempt < 3) throw Object.assign(new Error('busy'), { wait: attempt === 1 ? 300 : 10_000 });
        return 'ok';
      },
      { attempts: 3, baseMs: 1, maxMs: 50, askedDelay: (e) => (e as { wait?: number }).wait },
    );
    // The first asked 300 ms, the second 10 s: both capped at maxMs (50 ms), far above the 1 ms backoff.
    expect(waits.every((ms) => ms >= 45 && ms < 250)).toBe(true);
  });
});

describe('parseRetryAfter', () => {
  it('reads delay seconds and HTTP dates, and ignores anything else', () => {
    const now = Date.parse('2026-11-29T09:00:00Z');
    expect(parseRetryAfter('2', now)).toBe(2_000);
    expect(parseRetryAfter(' 30 ', now)).toBe(30_000);
    expect(parseRetryAfter('Sun, 29 Nov 2026 09:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sun, 29 Nov 2026 08:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
