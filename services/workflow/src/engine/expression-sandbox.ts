import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from '@agentplatform/service-kit';
import { narrowScope, type ExpressionScope } from '../domain/expressions.js';
import { nodeExpressions } from '../domain/node-expressions.js';
import type { JsonObject, WorkflowNode } from '../domain/workflow.types.js';
import type { SandboxAnswer, SandboxJob } from './expression-worker.js';

/** A node's CEL work ran over its budget (time, or the sandbox thread's memory). */
export class ExpressionBudgetExceeded extends Error {
  constructor(
    readonly expression: string | undefined,
    readonly budgetMs: number,
    readonly resource: 'time' | 'memory',
  ) {
    super(
      resource === 'time'
        ? `expression ${expression === undefined ? '' : `'${shorten(expression)}' `}ran over its budget of ${budgetMs} ms`
        : `expression ${expression === undefined ? '' : `'${shorten(expression)}' `}ran out of memory`,
    );
    this.name = 'ExpressionBudgetExceeded';
  }
}

/** An expression could not be evaluated (a missing field, a type mismatch, a bad argument). */
export class SandboxExpressionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxExpressionError';
  }
}

function shorten(source: string): string {
  const flat = source.replace(/\s+/g, ' ');
  return flat.length > 200 ? `${flat.slice(0, 197)}...` : flat;
}

/** A tenant is heavy while its recent thread time is over this many budgets. */
const HEAVY_BUDGETS = 20;
/** Recent thread time halves every this many ms. */
const USAGE_HALF_LIFE_MS = 10_000;
/** Tenants whose thread time is remembered (the longest unseen are forgotten first). */
const USAGE_TENANTS = 10_000;

/**
 * Each tenant's recent sandbox thread time, decaying by half every USAGE_HALF_LIFE_MS: over
 * `heavyMs`, the tenant is heavy. A tenant forgotten (or never seen) uses nothing.
 */
class TenantUsage {
  private readonly byTenant = new Map<string, { ms: number; at: number }>();

  constructor(private readonly heavyMs: number) {}

  add(tenantId: string, ms: number): void {
    const now = Date.now();
    const total = this.current(tenantId, now) + ms;
    this.byTenant.delete(tenantId);
    if (this.byTenant.size >= USAGE_TENANTS) this.byTenant.delete(this.byTenant.keys().next().value!);
    this.byTenant.set(tenantId, { ms: total, at: now });
  }

  isHeavy(tenantId: string): boolean {
    return this.current(tenantId, Date.now()) > this.heavyMs;
  }

  private current(tenantId: string, now: number): number {
    const seen = this.byTenant.get(tenantId);
    return seen ? seen.ms * 0.5 ** ((now - seen.at) / USAGE_HALF_LIFE_MS) : 0;
  }
}

/** Computes a node's CEL work (domain/node-expressions.ts) under the budget. */
export interface ExpressionRunner {
  compute(
    request: { tenantId: string; node: WorkflowNode; scope: ExpressionScope },
    signal: AbortSignal,
  ): Promise<JsonObject>;
}

export interface SandboxOptions {
  /** Evaluation time a node's expressions may use together (CEL_BUDGET_MS). */
  budgetMs: number;
  /** Sandbox threads (CEL_WORKERS). */
  threads: number;
  /** Heap of one sandbox thread; a bomb that builds huge values dies here, not in the service. */
  memoryMb: number;
  logger: Logger;
  /** The compiled worker script; tests point it at the build output. */
  workerFile?: string;
}

interface Job {
  id: number;
  tenantId: string;
  node: WorkflowNode;
  scope: ExpressionScope;
  signal: AbortSignal;
  resolve: (output: JsonObject) => void;
  reject: (error: unknown) => void;
  onAbort: () => void;
}

interface Thread {
  worker: Worker;
  startedAt: Float64Array;
  current: Int32Array;
  /** Set once the thread has loaded and warmed up its evaluator; jobs go only to ready threads. */
  ready: boolean;
  /** When the current job was handed to the thread. */
  dispatchedAt: number;
  /** The tenant whose job this thread runs, or whose bomb it is being started to replace. */
  heldBy?: string;
  /** Since when `heldBy` holds it (what the tenant's thread time is counted from). */
  heldSince: number;
  job?: Job;
  timer?: NodeJS.Timeout;
}

/**
 * The expression budget (docs/design.md section 7, docs/workflow-nodes.md): CEL runs on a small pool of
 * worker threads, never on the service's event loop. A job that runs longer than the budget (timed
 * from the moment its thread starts it, as stamped in a shared buffer) has its thread terminated
 * and replaced, and fails with ExpressionBudgetExceeded naming the expression it was in. Waiting
 * jobs are served round-robin by tenant, and one tenant never holds every thread (running its
 * jobs, or restarting after its bombs), so another tenant's expressions do not wait for a bomb.
 * Nor do several such tenants together: a tenant whose recent thread time is high (TenantUsage)
 * is heavy, and heavy tenants share all threads but one, which stays for the others.
 */
export class ExpressionSandbox implements ExpressionRunner {
  private readonly threads: Thread[] = [];
  private readonly usage: TenantUsage;
  /** Waiting jobs by tenant; a Map keeps insertion order, which makes the round-robin. */
  private readonly waiting = new Map<string, Job[]>();
  private nextId = 1;
  private closed = false;
  private readonly workerFile: string;
  /**
   * Parsing and planning a node's expressions (a few ms for 4 KB, but cold or on a starved CPU far
   * more) are bounded separately and generously: they do not depend on the data.
   */
  private readonly parseAllowanceMs: number;

  constructor(private readonly options: SandboxOptions) {
    this.workerFile = options.workerFile ?? path.join(__dirname, 'expression-worker.js');
    this.parseAllowanceMs = Math.max(2_000, options.budgetMs * 20);
    this.usage = new TenantUsage(options.budgetMs * HEAVY_BUDGETS);
  }

  /**
   * The threads start with the first job, not at boot: each holds a V8 isolate with the CEL
   * evaluator (about 10 MB), which a replica that never evaluates a non-trivial expression
   * need not pay for. The first job waits for a thread to be ready; its budget starts then.
   */
  private startThreads(): void {
    for (let i = 0; i < this.options.threads; i++) this.threads.push(this.spawn());
  }

  compute(
    request: { tenantId: string; node: WorkflowNode; scope: ExpressionScope },
    signal: AbortSignal,
  ): Promise<JsonObject> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new Error('the expression sandbox is closed'));
      if (signal.aborted) return reject(signal.reason);
      if (this.threads.length === 0) this.startThreads();
      const job: Job = { id: this.nextId++, ...request, signal, resolve, reject, onAbort: () => this.abort(job) };
      signal.addEventListener('abort', job.onAbort, { once: true });
      const queue = this.waiting.get(job.tenantId);
      if (queue) queue.push(job);
      else this.waiting.set(job.tenantId, [job]);
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const queue of this.waiting.values()) {
      for (const job of queue) this.settle(job, new Error('the expression sandbox is closed'));
    }
    this.waiting.clear();
    await Promise.all(
      this.threads.map((thread) => {
        clearTimeout(thread.timer);
        if (thread.job) this.settle(thread.job, new Error('the expression sandbox is closed'));
        return thread.worker.terminate();
      }),
    );
  }

  private spawn(): Thread {
    const progress = new SharedArrayBuffer(16);
    const worker = new Worker(this.workerFile, {
      workerData: { progress },
      resourceLimits: { maxOldGenerationSizeMb: this.options.memoryMb, maxYoungGenerationSizeMb: 16 },
    });
    const thread: Thread = {
      worker,
      startedAt: new Float64Array(progress, 0, 1),
      current: new Int32Array(progress, 8, 1),
      ready: false,
      dispatchedAt: 0,
      heldSince: Date.now(),
    };
    worker.on('message', (answer: SandboxAnswer) => this.answered(thread, answer));
    worker.on('error', (error: Error & { code?: string }) => {
      const job = thread.job;
      if (job) {
        const memory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
        if (!memory) this.options.logger.error({ err: error }, 'expression sandbox thread failed');
        this.settle(job, memory ? this.exceeded(thread, job, 'memory') : error);
      }
      this.replace(thread);
    });
    worker.on('exit', () => {
      if (this.threads.includes(thread) && !this.closed) {
        if (thread.job) this.settle(thread.job, new Error('the expression sandbox thread exited'));
        this.replace(thread);
      }
    });
    return thread;
  }

  /** Gives the longest-waiting tenant's next job to each idle thread. */
  private dispatch(): void {
    for (const thread of this.threads) {
      if (thread.job || !thread.ready) continue;
      const job = this.take();
      if (!job) return;
      thread.job = job;
      this.hold(thread, job.tenantId);
      thread.startedAt[0] = 0;
      thread.dispatchedAt = Date.now();
      // Only what the node's expressions read crosses to the thread (a copy of each value), and
      // the previous output whole: it is the default body, message or child input of a node.
      const scope = { ...narrowScope(job.scope, nodeExpressions(job.node)), previous: job.scope.previous };
      thread.worker.postMessage({ id: job.id, node: job.node, scope } satisfies SandboxJob);
      this.arm(thread, job, this.options.budgetMs);
    }
  }

  /**
   * The next job in tenant turn. With more than one thread, a tenant holds at most all but one
   * (counting threads being restarted after its bombs), and so do the heavy tenants together, so
   * a tenant of ordinary use always finds one free.
   */
  private take(): Job | undefined {
    const cap = Math.max(1, this.threads.length - 1);
    const heavyHeld = this.threads.filter((t) => t.heldBy !== undefined && this.usage.isHeavy(t.heldBy)).length;
    for (const [tenantId, queue] of this.waiting) {
      if (this.threads.filter((t) => t.heldBy === tenantId).length >= cap) continue;
      if (heavyHeld >= cap && this.usage.isHeavy(tenantId)) continue;
      const job = queue.shift()!;
      this.waiting.delete(tenantId);
      if (queue.length > 0) this.waiting.set(tenantId, queue);
      return job;
    }
    return undefined;
  }

  /**
   * Checks the job after `ms`: still parsing (within its allowance) or started less than the
   * budget ago, it checks again later; over either, its thread is stopped.
   */
  private arm(thread: Thread, job: Job, ms: number): void {
    thread.timer = setTimeout(() => {
      if (thread.job !== job) return;
      const started = thread.startedAt[0]!;
      const elapsed = started > 0 ? Date.now() - started : 0;
      const parsing = started > 0 ? 0 : Date.now() - thread.dispatchedAt;
      if (elapsed < this.options.budgetMs && parsing < this.parseAllowanceMs) {
        return this.arm(thread, job, started > 0 ? this.options.budgetMs - elapsed + 1 : this.options.budgetMs);
      }
      this.settle(job, this.exceeded(thread, job, 'time'));
      this.replace(thread);
    }, ms);
  }

  private exceeded(thread: Thread, job: Job, resource: 'time' | 'memory'): ExpressionBudgetExceeded {
    const index = Atomics.load(thread.current, 0);
    const sources = nodeExpressions(job.node);
    const expression = index >= 0 ? sources[index] : sources.length === 1 ? sources[0] : undefined;
    return new ExpressionBudgetExceeded(expression, this.options.budgetMs, resource);
  }

  private answered(thread: Thread, answer: SandboxAnswer): void {
    if ('ready' in answer) {
      thread.ready = true;
      this.unhold(thread);
      return this.dispatch();
    }
    const job = thread.job;
    if (!job || job.id !== answer.id) return;
    clearTimeout(thread.timer);
    thread.job = undefined;
    this.unhold(thread);
    if (answer.ok) this.settle(job, undefined, answer.output as JsonObject);
    else if (answer.outOfMemory) this.settle(job, this.exceeded(thread, job, 'memory'));
    else this.settle(job, new SandboxExpressionError(answer.message));
    this.dispatch();
  }

  /** A job given up by its caller (node timeout, cancel): dropped from the line, or its thread stopped. */
  private abort(job: Job): void {
    const queue = this.waiting.get(job.tenantId);
    const at = queue?.indexOf(job) ?? -1;
    if (queue && at >= 0) {
      queue.splice(at, 1);
      if (queue.length === 0) this.waiting.delete(job.tenantId);
      return this.settle(job, job.signal.reason);
    }
    const thread = this.threads.find((t) => t.job === job);
    if (thread) {
      this.settle(job, job.signal.reason);
      this.replace(thread);
    }
  }

  /** Terminates a thread (busy with a job that is over) and puts a fresh one in its place. */
  private replace(thread: Thread): void {
    const at = this.threads.indexOf(thread);
    if (at < 0) return;
    clearTimeout(thread.timer);
    const heldBy = thread.job?.tenantId ?? thread.heldBy;
    thread.job = undefined;
    this.threads.splice(at, 1);
    void thread.worker.terminate();
    if (this.closed) return;
    const fresh = this.spawn();
    // The restart is the bomb's cost too: the tenant holds the fresh thread until it is ready.
    fresh.heldBy = heldBy;
    fresh.heldSince = thread.heldSince;
    this.threads.push(fresh);
    this.dispatch();
  }

  private hold(thread: Thread, tenantId: string): void {
    thread.heldBy = tenantId;
    thread.heldSince = Date.now();
  }

  /** The thread is free: its tenant is charged the time it held it. */
  private unhold(thread: Thread): void {
    if (thread.heldBy !== undefined) this.usage.add(thread.heldBy, Date.now() - thread.heldSince);
    thread.heldBy = undefined;
  }

  private settle(job: Job, error: unknown, output?: JsonObject): void {
    job.signal.removeEventListener('abort', job.onAbort);
    if (error !== undefined) job.reject(error);
    else job.resolve(output!);
  }
}
