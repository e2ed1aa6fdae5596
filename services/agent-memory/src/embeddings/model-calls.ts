import type { QueriesWaiting } from './embedding-provider.js';

/**
 * Texts per model call for background batches: a query waits at most for the call in progress,
 * so the backlog's batches go to the model one text a call. The model runs each text on its own
 * anyway (minilm.worker.ts), so longer calls would save only a message to the worker, and make a
 * query wait for several texts.
 */
export const BACKGROUND_CALL = 1;

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
 * `backgroundCall` texts, so that a query never waits for more than one such call. Queries wait
 * per tenant and the tenants take turns, a query a call: a tenant's burst of queries delays that
 * tenant's, while another tenant's query waits for at most one of each waiting tenant's.
 */
export class ModelCalls {
  /** Queries waiting, one FIFO per tenant; the Map's order is the order of turns. */
  private readonly urgent = new Map<string, Job[]>();
  private queriesWaiting = 0;
  private readonly background: Job[] = [];
  /** The call in progress: a whole query, or a background batch's next texts; since when (Date.now()). */
  private running: { id: number; job: Job; query: boolean; startedAt: number } | undefined;
  /** The model's time on background calls so far (ms), see backgroundModelMs. */
  private backgroundMs = 0;
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

  /** A background batch, or a query of `tenant`'s (queries of no tenant take their turns together). */
  enqueue(texts: string[], background: boolean, tenant = ''): Promise<Float32Array[]> {
    if (texts.length === 0) return Promise.resolve([]);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const job = { texts, queuedAt: Date.now(), done: [], resolve, reject };
      if (background) this.background.push(job);
      else this.queue(tenant, job);
      this.pump();
    });
  }

  /**
   * How long the oldest query still queued has waited for the model, in ms (0: none waits). It
   * grows only while queries come faster than the model answers them.
   */
  queryWaitMs(): number {
    let oldest = Infinity;
    for (const [first] of this.urgent.values()) oldest = Math.min(oldest, first.queuedAt);
    return oldest === Infinity ? 0 : Date.now() - oldest;
  }

  /**
   * The model's time on background calls so far, in ms: each call from its start to its answer.
   * Their waits in this queue (behind queries) are not counted: they are the queries' time.
   */
  backgroundModelMs(): number {
    return this.backgroundMs;
  }

  /** The queries waiting (not the one running), of `tenant` and of every tenant. */
  waiting(tenant: string): QueriesWaiting {
    return { tenant: this.urgent.get(tenant)?.length ?? 0, total: this.queriesWaiting, tenants: this.urgent.size };
  }

  /** The answer to call `id`: its vectors, or an error that fails the call's jobs. */
  settle(id: number, result: Float32Array[] | Error): void {
    const running = this.running;
    if (!running || running.id !== id) return;
    this.running = undefined;
    const { job, query } = running;
    if (!query) this.backgroundMs += Date.now() - running.startedAt;
    if (result instanceof Error) job.reject(result);
    else if (query) job.resolve(result);
    else {
      job.done.push(...result);
      if (job.done.length === job.texts.length) job.resolve(job.done);
      else this.background.unshift(job);
    }
    this.pump();
  }

  /** Fails every queued and running job, and every later one. */
  fail(error: Error): void {
    this.failure ??= error;
    const running = this.running ? [this.running.job] : [];
    const jobs = [...running, ...[...this.urgent.values()].flat(), ...this.background.splice(0)];
    this.urgent.clear();
    this.queriesWaiting = 0;
    this.running = undefined;
    for (const job of jobs) job.reject(this.failure);
  }

  private queue(tenant: string, job: Job): void {
    const lane = this.urgent.get(tenant);
    if (lane) lane.push(job);
    else this.urgent.set(tenant, [job]);
    this.queriesWaiting++;
  }

  /** The next tenant's oldest query, that tenant's turn moving to the back. */
  private nextQuery(): Job | undefined {
    const next = this.urgent.entries().next();
    if (next.done) return undefined;
    const [tenant, lane] = next.value;
    const job = lane.shift()!;
    this.urgent.delete(tenant);
    if (lane.length > 0) this.urgent.set(tenant, lane);
    this.queriesWaiting--;
    return job;
  }

  private pump(): void {
    if (this.running || !this.open || this.failure) return;
    const query = this.nextQuery();
    if (query) {
      this.running = { id: this.nextId++, job: query, query: true, startedAt: Date.now() };
      this.dispatch(this.running.id, query.texts);
      return;
    }
    const job = this.background.shift();
    if (!job) return;
    const from = job.done.length;
    this.running = { id: this.nextId++, job, query: false, startedAt: Date.now() };
    this.dispatch(this.running.id, job.texts.slice(from, from + this.backgroundCall));
  }
}
