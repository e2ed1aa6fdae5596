import { trimYoungGenerationWhenQuiet, type NewSpace } from './young-generation';

const MB = 1024 * 1024;

describe('trimYoungGenerationWhenQuiet', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** A young generation that allocates `rate` bytes a check and is emptied by a collection. */
  function youngGeneration(committed: number, rate: number) {
    const space: NewSpace = { committed, used: 4 * MB };
    const collections: number[] = [];
    return {
      space,
      collections,
      read: () => ({ ...space }),
      allocate: () => {
        space.used += rate;
      },
      collect: () => {
        collections.push(Date.now());
        space.used = 0.5 * MB;
        space.committed = 1 * MB;
      },
    };
  }

  /** Starts the trim on `young`, lets `seconds` pass in 5 s steps of allocation, and stops it. */
  function run(young: ReturnType<typeof youngGeneration>, seconds: number, eachStep?: (second: number) => void) {
    const stop = trimYoungGenerationWhenQuiet({ readNewSpace: young.read, collect: young.collect });
    for (let second = 0; second < seconds; second += 5) {
      young.allocate();
      eachStep?.(second);
      jest.advanceTimersByTime(5_000);
    }
    stop();
  }

  it('collects once after 15 s without a collection, and not again once the space is back to its start', () => {
    const young = youngGeneration(32 * MB, 0.1 * MB);
    run(young, 90);
    expect(young.collections).toHaveLength(1);
    expect(young.space.committed).toBe(1 * MB);
  });

  it('never collects while the process collects on its own (used falls between checks)', () => {
    const young = youngGeneration(32 * MB, 6 * MB);
    run(young, 120, (second) => {
      // A scavenge of its own every other check, as a busy process has many.
      if (second % 10 === 0) young.space.used = 1 * MB;
    });
    expect(young.collections).toHaveLength(0);
  });

  it('leaves a young generation that has not grown alone', () => {
    const young = youngGeneration(1 * MB, 0.01 * MB);
    run(young, 60);
    expect(young.collections).toHaveLength(0);
  });

  it('does nothing without a collector (gc not exposed) and stops its checks when asked', () => {
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
    const read = jest.fn(() => ({ committed: 32 * MB, used: 1 * MB }));
    trimYoungGenerationWhenQuiet({ readNewSpace: read })();
    const collect = jest.fn();
    const stop = trimYoungGenerationWhenQuiet({ readNewSpace: read, collect });
    stop();
    jest.advanceTimersByTime(60_000);
    expect(read).toHaveBeenCalledTimes(1);
    expect(collect).not.toHaveBeenCalled();
  });
});
