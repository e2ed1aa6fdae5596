/**
 * Texts per model call for background batches: a query waits at most for the call in progress,
 * so the backlog's batches go to the model in short calls. Longer calls saved no CPU per text
 * (bench/model-rss.js: 7.0 ms per text in calls of 4, 7.6 ms in calls of 16, on the loaded
 * machine of 2026-11-24) and held RSS at the peak of their longest call (398 MB against 261 MB
 * after batches of 16 texts of 256 word pieces): the attention's buffers grow with the call.
 */
export const BACKGROUND_CALL = 4;

interface Job {
  texts: string[];
  /** When it was queued (Date.now()). */
  queuedAt: number;
  /** Vectors of the texts already embedded (a background job runs in several calls). */
  done: Float32Array[];
  resolve(vectors: Float32Array[]): void;
  reject(error: Error): void;
}

/**
 * The queue in front of a model that runs one call at a time (the embedding worker): a query's
 * texts go before background batches, and a background batch is cut into calls of
 * `backgroundCall` texts, so that a query never waits for more than one such call.
 */
export class ModelCalls {
  private readonly urgent: Job[] = [];
  private readonly background: Job[] = [];
  private running: { id: number; job: Job; background: boolean } | undefined;
  private nextId = 1;
  private open = false;
  private failure: Error | undefined;

  constructor(
    /** Starts a model call; its answer comes back through settle(id, ...). */
    private readonly dispatch: (id: number, texts: string[]) => void,
    private readonly backgroundCall = BACKGROUND_CALL,
  ) {}

  /** Lets calls start (the model has loaded). */
  start(): void {
    this.open = true;
    this.pump();
  }

  enqueue(texts: string[], background: boolean): Promise<Float32Array[]> {
    if (texts.length === 0) return Promise.resolve([]);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      (background ? this.background : this.urgent).push({ texts, queuedAt: Date.now(), done: [], resolve, reject });
      this.pump();
    });
  }

  /**
   * How long the oldest query still queued has waited for the model, in ms (0: none waits). It
   * grows only while queries come faster than the model answers them.
   */
  queryWaitMs(): number {
    return this.urgent.length > 0 ? Date.now() - this.urgent[0].queuedAt : 0;
  }

  /** The answer to call `id`: its vectors, or an error that fails the call's job. */
  settle(id: number, result: Float32Array[] | Error): void {
    const running = this.running;
    if (!running || running.id !== id) return;
    this.running = undefined;
    const { job, background } = running;
    if (result instanceof Error) job.reject(result);
    else {
      job.done.push(...result);
      if (job.done.length < job.texts.length) (background ? this.background : this.urgent).unshift(job);
      else job.resolve(job.done);
    }
    this.pump();
  }

  /** Fails every queued and running job, and every later one. */
  fail(error: Error): void {
    this.failure ??= error;
    const jobs = [this.running?.job, ...this.urgent.splice(0), ...this.background.splice(0)];
    this.running = undefined;
    for (const job of jobs) job?.reject(this.failure);
  }

  private pump(): void {
    if (this.running || !this.open || this.failure) return;
    const urgent = this.urgent.length > 0;
    const job = urgent ? this.urgent.shift()! : this.background.shift();
    if (!job) return;
    const from = job.done.length;
    const texts = urgent ? job.texts.slice(from) : job.texts.slice(from, from + this.backgroundCall);
    this.running = { id: this.nextId++, job, background: !urgent };
    this.dispatch(this.running.id, texts);
  }
}
