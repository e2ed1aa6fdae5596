import { GroupCommit } from './group-commit';

/** A flush that records its batches and answers when released. */
function recorder() {
  const batches: Array<{ key: string; items: number[] }> = [];
  const waiting: Array<() => void> = [];
  const flush = async (key: string, items: number[]) => {
    batches.push({ key, items });
    await new Promise<void>((resolve) => waiting.push(resolve));
    return items.map((n) => (n < 0 ? new Error(`negative ${n}`) : n * 10));
  };
  /** Lets every flush in flight answer. */
  const release = () => waiting.splice(0).forEach((resolve) => resolve());
  return { batches, flush, release };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupCommit', () => {
  it('flushes a lone call at once and groups the calls that arrive while it is in flight', async () => {
    const r = recorder();
    const commit = new GroupCommit(r.flush);
    const first = commit.submit('a', 1);
    await tick();
    expect(r.batches).toEqual([{ key: 'a', items: [1] }]);
    const later = [commit.submit('a', 2), commit.submit('a', 3), commit.submit('a', 4)];
    await tick();
    expect(r.batches).toHaveLength(1);
    r.release();
    await expect(first).resolves.toBe(10);
    await tick();
    expect(r.batches[1]).toEqual({ key: 'a', items: [2, 3, 4] });
    r.release();
    await expect(Promise.all(later)).resolves.toEqual([20, 30, 40]);
  });

  it('keeps keys apart and rejects only the items whose slot is an error', async () => {
    const r = recorder();
    const commit = new GroupCommit(r.flush);
    const a = commit.submit('a', 1);
    const b = commit.submit('b', 2);
    await tick();
    expect(r.batches.map((x) => x.key)).toEqual(['a', 'b']);
    r.release();
    await expect(Promise.all([a, b])).resolves.toEqual([10, 20]);
    const good = commit.submit('a', 5);
    await tick();
    const bad = commit.submit('a', -1);
    const alsoGood = commit.submit('a', 6);
    r.release();
    await expect(good).resolves.toBe(50);
    await tick();
    r.release();
    await expect(bad).rejects.toThrow('negative -1');
    await expect(alsoGood).resolves.toBe(60);
  });

  it('rejects the whole batch when the flush throws, and recovers for the next call', async () => {
    let fail = true;
    const commit = new GroupCommit(async (_key: string, items: number[]) => {
      if (fail) throw new Error('database down');
      return items;
    });
    await expect(commit.submit('k', 1)).rejects.toThrow('database down');
    fail = false;
    await expect(commit.submit('k', 2)).resolves.toBe(2);
  });

  it('splits a long queue into batches of at most maxBatch', async () => {
    const sizes: number[] = [];
    const commit = new GroupCommit(async (_key: string, items: number[]) => {
      sizes.push(items.length);
      await tick();
      return items;
    }, 2);
    await Promise.all([1, 2, 3, 4, 5, 6].map((n) => commit.submit('k', n)));
    expect(sizes).toEqual([1, 2, 2, 1]);
  });

  it('keeps up to maxInFlight flushes of a key in flight, grouping what arrives meanwhile', async () => {
    const r = recorder();
    const commit = new GroupCommit(r.flush, 256, 2);
    const first = commit.submit('a', 1);
    const second = commit.submit('a', 2);
    await tick();
    // Two lone calls, each flushed at once.
    expect(r.batches).toEqual([
      { key: 'a', items: [1] },
      { key: 'a', items: [2] },
    ]);
    const later = [commit.submit('a', 3), commit.submit('a', 4)];
    await tick();
    expect(r.batches).toHaveLength(2);
    r.release();
    await expect(Promise.all([first, second])).resolves.toEqual([10, 20]);
    await tick();
    expect(r.batches[2]).toEqual({ key: 'a', items: [3, 4] });
    r.release();
    await expect(Promise.all(later)).resolves.toEqual([30, 40]);
  });
});
