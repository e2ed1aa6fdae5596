/**
 * Group commit: while a key's flushes are in flight (one, or up to `maxInFlight`), further
 * submissions for that key wait and go out together in the next flush. A lone call is flushed at once (no added latency); under load
 * the batches grow by themselves, so one round trip serves many callers. Every round trip costs CPU
 * in the caller, the database and the kernel, which is what bounds throughput on small machines.
 *
 * `flush` answers one result per item, in order; an `Error` in a slot rejects that item only. A
 * thrown error rejects the whole batch.
 */
export class GroupCommit<T, R> {
  private readonly keys = new Map<string, KeyState<T, R>>();

  constructor(
    private readonly flush: (key: string, items: T[]) => Promise<Array<R | Error>>,
    private readonly maxBatch = 256,
    /**
     * Flushes of one key in flight at once. 1: a flush waits for the one before it. More lets a
     * flush whose far side groups again (a batch call to a server that groups its items' writes
     * per agent) overlap with the one before, so the two levels do not take turns.
     */
    private readonly maxInFlight = 1,
  ) {}

  submit(key: string, item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      let state = this.keys.get(key);
      if (!state) {
        state = { queue: [], inFlight: 0 };
        this.keys.set(key, state);
      }
      state.queue.push({ item, resolve, reject });
      if (state.inFlight < this.maxInFlight) void this.drain(key, state);
    });
  }

  /** Flushes the key's queue until it is empty; the key stays registered while any flush is busy. */
  private async drain(key: string, state: KeyState<T, R>): Promise<void> {
    state.inFlight += 1;
    while (state.queue.length > 0) {
      const batch = state.queue.splice(0, this.maxBatch);
      try {
        const results = await this.flush(
          key,
          batch.map((p) => p.item),
        );
        batch.forEach((pending, i) => {
          const result = results[i];
          if (result instanceof Error) pending.reject(result);
          else pending.resolve(result as R);
        });
      } catch (error) {
        for (const pending of batch) pending.reject(error);
      }
    }
    state.inFlight -= 1;
    if (state.inFlight === 0) this.keys.delete(key);
  }
}

interface KeyState<T, R> {
  queue: Array<Pending<T, R>>;
  inFlight: number;
}

interface Pending<T, R> {
  item: T;
  resolve: (value: R) => void;
  reject: (reason: unknown) => void;
}
