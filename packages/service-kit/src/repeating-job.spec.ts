import { startRepeatingJob } from './repeating-job.js';

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('startRepeatingJob', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate'] }));
  afterEach(() => jest.useRealTimers());

  it('runs passes one after another, each after the delay its outcome asks, and stops on shutdown', async () => {
    const outcomes: unknown[] = [];
    let calls = 0;
    const closers: Array<() => Promise<void> | void> = [];
    const lifecycle = { onShutdown: (_name: string, close: () => Promise<void> | void) => void closers.push(close) };
    startRepeatingJob(
      lifecycle,
      'test job',
      async () => {
        calls++;
        if (calls === 2) throw new Error('down');
        return calls;
      },
      (outcome) => {
        outcomes.push(outcome);
        return 'error' in outcome ? 500 : 100;
      },
      1_000,
    );

    await jest.advanceTimersByTimeAsync(999);
    expect(calls).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    await flush();
    expect(calls).toBe(1);
    await jest.advanceTimersByTimeAsync(100);
    await flush();
    expect(calls).toBe(2);
    // The failed pass asked for 500 ms.
    await jest.advanceTimersByTimeAsync(499);
    expect(calls).toBe(2);
    await jest.advanceTimersByTimeAsync(1);
    await flush();
    expect(calls).toBe(3);
    expect(outcomes).toEqual([{ value: 1 }, { error: new Error('down') }, { value: 3 }]);

    await closers[0]!();
    await jest.advanceTimersByTimeAsync(10_000);
    expect(calls).toBe(3);
  });
});
