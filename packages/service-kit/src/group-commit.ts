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
    private readonly flush: (key: string, items: T[], open: () => void) => Promise<Array<R | Error>>,
    private readonly maxBatch = 256,
    /**
     * Flushes of one key in flight at once. 1: a flush waits for the one before it. More lets a
     * flush whose far side groups again (a batch call to a server that groups its items' writes
     * per agent) overlap with the one before, so the two levels do not take turns.
     */
    private readonly maxInFlight = 1,
    /**
     * Staged flushes: the next flush of a key (within `maxInFlight`) starts only once the one
     * before has called the `open` it is given (or ended), e.g. once its reads are done, so that
     * it reads while the one before writes and gathers what arrived meanwhile. Unstaged flushes
     * start as soon as a slot is free.
     */
    private readonly staged = false,
  ) {}

  submit(key: string, item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      let state = this.keys.get(key);
      if (!state) {
        state = { queue: [], inFlight: 0, unopened: 0 };
        this.keys.set(key, state);
      }
      state.queue.push({ item, resolve, reject });
      this.pump(key, state);
    });
  }

  /** Starts flushes of the key while it has items, a free slot and (staged) no flush not yet open. */
  private pump(key: string, state: KeyState<T, R>): void {
    while (state.queue.length > 0 && state.inFlight < this.maxInFlight && !(this.staged && state.unopened > 0)) {
      void this.run(key, state, state.queue.splice(0, this.maxBatch));
    }
    if (state.inFlight === 0) this.keys.delete(key);
  }

  private async run(key: string, state: KeyState<T, R>, batch: Array<Pending<T, R>>): Promise<void> {
    state.inFlight += 1;
    state.unopened += 1;
    let opened = false;
    const open = () => {
      if (opened) return;
      opened = true;
      state.unopened -= 1;
      this.pump(key, state);
    };
    try {
      const results = await this.flush(
        key,
        batch.map((p) => p.item),
        open,
      );
      batch.forEach((pending, i) => {
        const result = results[i];
        if (result instanceof Error) pending.reject(result);
        else pending.resolve(result as R);
      });
    } catch (error) {
      for (const pending of batch) pending.reject(error);
    }
    state.inFlight -= 1;
    if (opened) this.pump(key, state);
    else open();
  }
}

interface KeyState<T, R> {
  queue: Array<Pending<T, R>>;
  inFlight: number;
  /** Flushes in flight that have not called `open` yet. */
  unopened: number;
}

interface Pending<T, R> {
  item: T;
  resolve: (value: R) => void;
  reject: (reason: unknown) => void;
}
