/**
 * Group commit: while one flush for a key is in flight, further submissions for that key wait and
 * go out together in the next flush. A lone call is flushed at once (no added latency); under load
 * the batches grow by themselves, so one round trip serves many callers. Every round trip costs CPU
 * in the caller, the database and the kernel, which is what bounds throughput on small machines.
 *
 * `flush` answers one result per item, in order; an `Error` in a slot rejects that item only. A
 * thrown error rejects the whole batch.
 */
export class GroupCommit<T, R> {
  private readonly queues = new Map<string, Array<Pending<T, R>>>();

  constructor(
    private readonly flush: (key: string, items: T[]) => Promise<Array<R | Error>>,
    private readonly maxBatch = 256,
  ) {}

  submit(key: string, item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const queue = this.queues.get(key);
      if (queue) {
        queue.push({ item, resolve, reject });
        return;
      }
      const fresh: Array<Pending<T, R>> = [{ item, resolve, reject }];
      this.queues.set(key, fresh);
      void this.drain(key, fresh);
    });
  }

  /** Flushes the key's queue until it is empty; the queue object stays registered while busy. */
  private async drain(key: string, queue: Array<Pending<T, R>>): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.splice(0, this.maxBatch);
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
    this.queues.delete(key);
  }
}

interface Pending<T, R> {
  item: T;
  resolve: (value: R) => void;
  reject: (reason: unknown) => void;
}
