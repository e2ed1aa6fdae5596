import { ModelCalls } from './model-calls.js';

/** A model that records each call's texts and answers only when told to (one call at a time). */
function fakeModel(backgroundCall?: number) {
  const calls: Array<{ id: number; texts: string[] }> = [];
  const queue = new ModelCalls((id, texts) => calls.push({ id, texts }), backgroundCall);
  /** Answers the call in progress with one vector per text (its length is the text's). */
  const answer = () => {
    const call = calls[calls.length - 1];
    queue.settle(
      call.id,
      call.texts.map((text) => Float32Array.from([text.length])),
    );
  };
  return { queue, calls, answer };
}

const texts = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('model calls', () => {
  it('cuts a background batch into short calls, and a query goes before the rest of it', async () => {
    const { queue, calls, answer } = fakeModel(4);
    queue.start();
    const batch = queue.enqueue(texts('b', 10), true);
    expect(calls[0].texts).toEqual(['b0', 'b1', 'b2', 'b3']);
    // A query arriving mid-batch waits only for the short call in progress.
    const query = queue.enqueue(['query', 'other'], false);
    expect(calls).toHaveLength(1);
    answer();
    expect(calls[1].texts).toEqual(['query', 'other']);
    answer();
    await expect(query).resolves.toEqual([Float32Array.from([5]), Float32Array.from([5])]);
    expect(calls[2].texts).toEqual(['b4', 'b5', 'b6', 'b7']);
    answer();
    expect(calls[3].texts).toEqual(['b8', 'b9']);
    answer();
    // Every text's vector, in the batch's order.
    const vectors = await batch;
    expect(vectors.map((v) => v[0])).toEqual(texts('b', 10).map((t) => t.length));
    expect(calls).toHaveLength(4);
  });

  it('waits for start, and fails queued, running and later jobs alike', async () => {
    const { queue, calls } = fakeModel();
    const waiting = queue.enqueue(['a'], true);
    expect(calls).toHaveLength(0);
    queue.start();
    expect(calls).toHaveLength(1);
    const queued = queue.enqueue(['b'], false);
    queue.fail(new Error('worker exited'));
    await expect(waiting).rejects.toThrow('worker exited');
    await expect(queued).rejects.toThrow('worker exited');
    await expect(queue.enqueue(['c'], false)).rejects.toThrow('worker exited');
  });

  it('fails only the job whose call failed, and goes on with the next', async () => {
    const { queue, calls, answer } = fakeModel();
    queue.start();
    const bad = queue.enqueue(['x'], true);
    const good = queue.enqueue(['y'], true);
    queue.settle(calls[0].id, new Error('embedding failed: bad input'));
    await expect(bad).rejects.toThrow('bad input');
    expect(calls[1].texts).toEqual(['y']);
    answer();
    await expect(good).resolves.toHaveLength(1);
  });

  it("reports how long the oldest queued query has waited, not the running call's time", () => {
    jest.useFakeTimers({ now: 0 });
    try {
      const { queue, answer } = fakeModel();
      queue.start();
      void queue.enqueue(['running'], false);
      jest.setSystemTime(5_000);
      expect(queue.queryWaitMs()).toBe(0);
      void queue.enqueue(['first'], false);
      jest.setSystemTime(5_300);
      void queue.enqueue(['second'], false);
      jest.setSystemTime(5_700);
      expect(queue.queryWaitMs()).toBe(700);
      answer(); // 'first' runs now; 'second' has waited since 5,300
      expect(queue.queryWaitMs()).toBe(400);
      answer();
      expect(queue.queryWaitMs()).toBe(0);
      // Background batches are not queries: they never count.
      void queue.enqueue(['b'], true);
      void queue.enqueue(['c'], true);
      jest.setSystemTime(60_000);
      expect(queue.queryWaitMs()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });
  it("counts the model's time on background calls, not their waits behind queries", () => {
    jest.useFakeTimers({ now: 0 });
    try {
      const { queue, answer } = fakeModel();
      queue.start();
      void queue.enqueue(['b0', 'b1'], true);
      jest.setSystemTime(30); // b0's call: 30 ms
      void queue.enqueue(['query'], false);
      answer();
      jest.setSystemTime(530); // the query's call: 500 ms, while b1 waits
      answer();
      expect(queue.backgroundModelMs()).toBe(30);
      jest.setSystemTime(550); // b1's call: 20 ms
      answer();
      expect(queue.backgroundModelMs()).toBe(50);
    } finally {
      jest.useRealTimers();
    }
  });

  it("takes tenants' queries in turns, a query each, and counts what waits per tenant", () => {
    jest.useFakeTimers({ now: 0 });
    try {
      const { queue, calls, answer } = fakeModel();
      queue.start();
      void queue.enqueue(['running'], false, 'a');
      for (const text of ['a1', 'a2', 'a3']) void queue.enqueue([text], false, 'a');
      jest.setSystemTime(100);
      void queue.enqueue(['b1'], false, 'b');
      void queue.enqueue(['b2'], false, 'b');
      void queue.enqueue(['c1'], false, 'c');
      void queue.enqueue(['background'], true);
      expect(queue.waiting('a')).toEqual({ tenant: 3, total: 6, tenants: 3 });
      expect(queue.waiting('quiet')).toEqual({ tenant: 0, total: 6, tenants: 3 });
      jest.setSystemTime(300);
      answer(); // a1 runs now
      answer(); // b1
      // The oldest query still waiting, whoever's: a2 (queued at 0).
      expect(queue.queryWaitMs()).toBe(300);
      for (let i = 0; i < 6; i++) answer();
      // A tenant's burst delays its own queries: b and c did not wait for all of a's.
      expect(calls.map((call) => call.texts[0])).toEqual(['running', 'a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'background']);
      expect(queue.waiting('a')).toEqual({ tenant: 0, total: 0, tenants: 0 });
      expect(queue.queryWaitMs()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('sends each query in a call of its own, and a background batch one text a call by default', async () => {
    const { queue, calls, answer } = fakeModel();
    queue.start();
    const batch = queue.enqueue(texts('b', 2), true);
    // Queries of two tenants arrive while the batch's first call runs: each goes alone, in turns.
    const a = ['a0', 'a1'].map((text) => queue.enqueue([text], false, 'a'));
    const b = queue.enqueue(['b0'], false, 'b');
    for (let i = 0; i < 5; i++) answer();
    expect(calls.map((call) => call.texts)).toEqual([['b0'], ['a0'], ['b0'], ['a1'], ['b1']]);
    await expect(Promise.all([...a, b])).resolves.toEqual([
      [Float32Array.from([2])],
      [Float32Array.from([2])],
      [Float32Array.from([2])],
    ]);
    await expect(batch).resolves.toHaveLength(2);
  });
});
