import { backoffDelay, retry, withJitter } from './retry';

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
});
