import { InMemoryOutbox, InMemoryQuotaCounter } from '@agentplatform/testing/in-memory';
import { createLogger, InsufficientCreditsError, NotFoundError, SecretBox } from '@agentplatform/service-kit';
import type { AgentDirectory, ChatReply } from '../clients/agents.client.js';
import type { CreditLedger } from '../clients/credits.client.js';
import type { StatusCounts } from '../domain/statistics.js';
import type { Execution, ExecutionStatus } from '../domain/execution.types.js';
import type { Workflow, WorkflowNode } from '../domain/workflow.types.js';
import { ExpressionError } from '../domain/expressions.js';
import { computeNode } from '../domain/node-expressions.js';
import { SandboxExpressionError, type ExpressionRunner } from '../engine/expression-sandbox.js';
import type { ExecutionEngine } from '../engine/execution-engine.js';
import type { ExecutionChanges, ExecutionRepository } from '../persistence/execution.repository.js';
import { NO_LEASE, type Lease } from '../domain/lease.js';
import type { WorkflowRepository } from '../persistence/workflow.repository.js';
import type { UseCaseDeps } from '../use-cases/deps.js';

/** The workflow store in memory, tenant-scoped like the mongoose repository. */
export class InMemoryWorkflows implements Pick<
  WorkflowRepository,
  'count' | 'insert' | 'get' | 'getForHook' | 'rotateHook' | 'list' | 'update' | 'setStatus' | 'delete'
> {
  readonly byId = new Map<string, Workflow>();

  async count(tenantId: string): Promise<number> {
    return [...this.byId.values()].filter((w) => w.tenantId === tenantId).length;
  }
  async insert(workflow: Workflow): Promise<void> {
    this.byId.set(workflow.id, structuredClone(workflow));
  }
  async get(tenantId: string, id: string): Promise<Workflow | undefined> {
    const found = this.byId.get(id);
    return found?.tenantId === tenantId ? structuredClone(found) : undefined;
  }
  async getForHook(hookId: string): Promise<Workflow | undefined> {
    const found = [...this.byId.values()].find((w) => w.hookId === hookId);
    return found && structuredClone(found);
  }
  async rotateHook(tenantId: string, id: string, hookId: string, now: Date): Promise<Workflow | undefined> {
    const found = this.byId.get(id);
    if (found?.tenantId !== tenantId) return undefined;
    const updated = { ...found, hookId, updatedAt: now };
    this.byId.set(id, updated);
    return structuredClone(updated);
  }
  async list(tenantId: string, options: { skip: number; limit: number; status?: string }) {
    const all = [...this.byId.values()]
      .filter((w) => w.tenantId === tenantId && (!options.status || w.status === options.status))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id.localeCompare(a.id));
    return {
      items: all.slice(options.skip, options.skip + options.limit).map((w) => structuredClone(w)),
      total: all.length,
    };
  }
  update: WorkflowRepository['update'] = async (tenantId, id, changes, conditions = {}) => {
    const found = this.byId.get(id);
    if (found?.tenantId !== tenantId) return undefined;
    if (conditions.status && found.status !== conditions.status) return undefined;
    if (conditions.version !== undefined && (found.version ?? 1) !== conditions.version) return undefined;
    const updated = { ...found, ...changes };
    this.byId.set(id, updated);
    return structuredClone(updated);
  };
  setStatus: WorkflowRepository['setStatus'] = (tenantId, id, from, change, now) =>
    this.update(tenantId, id, { ...change, updatedAt: now }, from);
  async delete(tenantId: string, id: string): Promise<boolean> {
    if (this.byId.get(id)?.tenantId !== tenantId) return false;
    return this.byId.delete(id);
  }
}

type ExecutionStore = Pick<
  ExecutionRepository,
  | 'insert'
  | 'get'
  | 'getById'
  | 'list'
  | 'cancel'
  | 'statusCounts'
  | 'lastRunAt'
  | 'deleteForWorkflow'
  | 'pruneFinishedBefore'
  | 'save'
  | 'renewLeases'
  | 'claimExpired'
  | 'releaseLeases'
>;

/** Who runs a stored execution, as the repository keeps it beside the execution. */
interface StoredLease extends Lease {
  claims: number;
}

/**
 * The execution store in memory: the reads and writes of the use cases, and the engine's ports
 * (engine/ports.ts) with the repository's lease rules: a write applies only while its owner holds
 * the lease of a running execution; an ended or cancelled execution has no owner.
 */
export class InMemoryExecutions implements ExecutionStore {
  readonly byId = new Map<string, Execution>();
  readonly leases = new Map<string, StoredLease>();
  /** Every write the engine made, in order. */
  readonly writes: Array<{ id: string; kind: 'insert' | 'save'; changes?: ExecutionChanges }> = [];

  async insert(execution: Execution, lease: Lease = NO_LEASE): Promise<void> {
    this.byId.set(execution.id, structuredClone(execution));
    this.leases.set(execution.id, { ...lease, claims: 0 });
    this.writes.push({ id: execution.id, kind: 'insert' });
  }
  async get(tenantId: string, workflowId: string, id: string): Promise<Execution | undefined> {
    const found = this.byId.get(id);
    return found?.tenantId === tenantId && found.workflowId === workflowId ? structuredClone(found) : undefined;
  }
  async getById(tenantId: string, id: string): Promise<Execution | undefined> {
    const found = this.byId.get(id);
    return found?.tenantId === tenantId ? structuredClone(found) : undefined;
  }
  async countRunning(tenantId: string, atMost: number): Promise<number> {
    const running = [...this.byId.values()].filter((e) => e.tenantId === tenantId && e.status === 'running');
    return Math.min(atMost, running.length);
  }
  async list(tenantId: string, workflowId: string, options: { limit: number; status?: ExecutionStatus }) {
    const all = this.of(tenantId, workflowId)
      .filter((e) => !options.status || e.status === options.status)
      .sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime());
    return { items: all.slice(0, options.limit).map((e) => structuredClone(e)), total: all.length };
  }
  async cancel(tenantId: string, workflowId: string, id: string, now: Date): Promise<Execution | undefined> {
    const found = this.byId.get(id);
    if (found?.tenantId !== tenantId || found.workflowId !== workflowId || found.status !== 'running') return undefined;
    const { inFlight: _inFlight, ...rest } = found;
    const cancelled: Execution = {
      ...rest,
      status: 'cancelled',
      error: 'execution cancelled',
      completedAt: now,
      durationMs: Math.max(0, now.getTime() - found.startedAt.getTime()),
    };
    this.byId.set(id, cancelled);
    this.release(id);
    return structuredClone(cancelled);
  }
  async save(
    execution: Pick<Execution, 'id'>,
    owner: string,
    changes: ExecutionChanges,
    options: { clearInFlight?: boolean; releaseLease?: boolean } = {},
  ): Promise<boolean> {
    const found = this.byId.get(execution.id);
    if (!found || this.leases.get(execution.id)?.owner !== owner) return false;
    Object.assign(found, structuredClone(changes));
    if (options.clearInFlight) delete found.inFlight;
    if (options.releaseLease) this.release(execution.id);
    this.writes.push({ id: execution.id, kind: 'save', changes: structuredClone(changes) });
    return true;
  }
  async renewLeases(owner: string, ids: string[], until: Date): Promise<Set<string>> {
    const owned = ids.filter((id) => this.leases.get(id)?.owner === owner && this.byId.get(id)?.status === 'running');
    for (const id of owned) this.leases.get(id)!.until = until;
    return new Set(owned);
  }
  async claimExpired(owner: string, now: Date, until: Date) {
    const expired = [...this.leases.entries()]
      .filter(([id, lease]) => this.byId.get(id)?.status === 'running' && lease.until < now)
      .sort(([, a], [, b]) => a.until.getTime() - b.until.getTime())[0];
    if (!expired) return undefined;
    const [id, lease] = expired;
    Object.assign(lease, { owner, until, claims: lease.claims + 1 });
    return { execution: structuredClone(this.byId.get(id)!), claims: lease.claims };
  }
  async releaseLeases(owner: string, ids: string[]): Promise<void> {
    for (const id of ids) {
      if (this.leases.get(id)?.owner === owner && this.byId.get(id)?.status === 'running') this.release(id);
    }
  }
  async statusCounts(tenantId: string, workflowId: string): Promise<StatusCounts> {
    const counts: StatusCounts = { running: 0, completed: 0, failed: 0, cancelled: 0, finishedDurationMs: 0 };
    for (const e of this.of(tenantId, workflowId)) {
      counts[e.status] += 1;
      if (e.status === 'completed' || e.status === 'failed') counts.finishedDurationMs += e.durationMs ?? 0;
    }
    return counts;
  }
  async lastRunAt(tenantId: string, workflowIds: string[]): Promise<Map<string, Date>> {
    const last = new Map<string, Date>();
    for (const e of this.byId.values()) {
      if (e.tenantId !== tenantId || !workflowIds.includes(e.workflowId)) continue;
      const seen = last.get(e.workflowId);
      if (!seen || seen < e.startedAt) last.set(e.workflowId, e.startedAt);
    }
    return last;
  }
  async deleteForWorkflow(tenantId: string, workflowId: string): Promise<void> {
    for (const e of this.of(tenantId, workflowId)) this.byId.delete(e.id);
  }
  async pruneFinishedBefore(cutoff: Date, { keepPerWorkflow }: { keepPerWorkflow: number }): Promise<number> {
    let pruned = 0;
    for (const e of [...this.byId.values()]) {
      if (e.status === 'running' || !e.completedAt || e.completedAt >= cutoff) continue;
      const newer = this.of(e.tenantId, e.workflowId).filter((o) => o.startedAt > e.startedAt).length;
      if (newer >= keepPerWorkflow) pruned += Number(this.byId.delete(e.id));
    }
    return pruned;
  }
  async pendingCredits(limit: number): Promise<Array<Pick<Execution, 'id' | 'tenantId'>>> {
    return [...this.byId.values()]
      .filter((e) => e.creditPending)
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .slice(0, limit)
      .map((e) => ({ id: e.id, tenantId: e.tenantId }));
  }
  async markCredited(id: string): Promise<void> {
    const found = this.byId.get(id);
    if (found) delete found.creditPending;
  }
  /** The replica that runs an execution (null: none). */
  ownerOf(id: string): string | null | undefined {
    return this.leases.get(id)?.owner;
  }
  /** Lets an execution's lease run out, as when the replica that ran it died. */
  expire(id: string): void {
    const lease = this.leases.get(id);
    if (lease) lease.until = new Date(0);
  }
  private release(id: string): void {
    const lease = this.leases.get(id);
    if (lease) Object.assign(lease, NO_LEASE);
  }
  private of(tenantId: string, workflowId: string): Execution[] {
    return [...this.byId.values()].filter((e) => e.tenantId === tenantId && e.workflowId === workflowId);
  }
}

/** Agents that exist, per tenant; their chats answer from a script and are recorded. */
export class InMemoryAgents implements AgentDirectory {
  private readonly agents = new Set<string>();
  /** What the next chats answer, in order (an Error is thrown); an empty script echoes the message. */
  readonly script: Array<Partial<ChatReply> | Error> = [];
  readonly chats: Array<{ agentId: string; message: string }> = [];
  add(tenantId: string, agentId: string): void {
    this.agents.add(`${tenantId}/${agentId}`);
  }
  async agentExists(tenantId: string, agentId: string): Promise<boolean> {
    return this.agents.has(`${tenantId}/${agentId}`);
  }
  async chat(request: { tenantId: string; agentId: string; message: string }): Promise<ChatReply> {
    this.chats.push({ agentId: request.agentId, message: request.message });
    if (!this.agents.has(`${request.tenantId}/${request.agentId}`)) throw new NotFoundError('Agent');
    const next = this.script.shift();
    if (next instanceof Error) throw next;
    return {
      message_id: `msg_${this.chats.length}`,
      session_id: 'ses_1',
      content: request.message,
      role: 'assistant',
      model: 'fake',
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      created_at: new Date(0).toISOString(),
      steps: [],
      ...next,
    };
  }
}

/** CEL evaluated in this thread, without a budget: the engine's ExpressionRunner port in specs. */
export const inlineExpressions: ExpressionRunner = {
  async compute({ node, scope }) {
    try {
      return computeNode(node, scope);
    } catch (error) {
      if (error instanceof ExpressionError) throw new SandboxExpressionError(error.message);
      throw error;
    }
  },
};

/** A running execution of `nodes` chained in order, as startExecution stores it. */
export function newExecution(nodes: WorkflowNode[], changes: Partial<Execution> = {}): Execution {
  const now = new Date();
  return {
    id: `exe_${Math.random().toString(36).slice(2)}`,
    tenantId: 't1',
    workflowId: 'wf_1',
    workflowVersion: 1,
    status: 'running',
    trigger: 'manual',
    input: { n: 1 },
    graph: { nodes, edges: nodes.slice(1).map((n, i) => ({ source: nodes[i]!.id, target: n.id })) },
    nodeExecutions: [],
    startedAt: now,
    deadlineAt: new Date(now.getTime() + 60_000),
    startedEvent: false,
    ...changes,
  };
}

/** A credit balance per tenant with reservations by execution, as identity keeps them. */
export class InMemoryCredits implements CreditLedger {
  readonly balances = new Map<string, number>();
  readonly held = new Map<string, string>();
  readonly settled = new Set<string>();

  async reserveRun(tenantId: string, executionId: string): Promise<void> {
    if (this.held.has(executionId) || this.settled.has(executionId)) return;
    const balance = this.balances.get(tenantId) ?? 0;
    if (balance < 1) throw new InsufficientCreditsError();
    this.balances.set(tenantId, balance - 1);
    this.held.set(executionId, tenantId);
  }
  async settleRun(_tenantId: string, executionId: string): Promise<void> {
    if (this.held.delete(executionId)) this.settled.add(executionId);
  }
  async releaseRun(tenantId: string, executionId: string): Promise<void> {
    if (!this.held.delete(executionId)) return;
    this.balances.set(tenantId, (this.balances.get(tenantId) ?? 0) + 1);
  }
}

/**
 * The engine's port as the use cases see it: `submit` stores the run (or fails with `failWith`);
 * a run is finished at once when `finishWith` is set, as a graph of pure nodes would be.
 */
export class FakeEngine implements Pick<ExecutionEngine, 'submit' | 'waitFor' | 'abandon' | 'room'> {
  failWith?: Error;
  finishWith?: ExecutionStatus;
  readonly abandoned: string[] = [];
  constructor(private readonly executions: InMemoryExecutions) {}

  async submit(execution: Execution): Promise<Execution> {
    if (this.failWith) throw this.failWith;
    const stored: Execution = this.finishWith
      ? { ...execution, status: this.finishWith, completedAt: new Date(), durationMs: 5 }
      : execution;
    await this.executions.insert(stored);
    return stored;
  }
  async waitFor(tenantId: string, workflowId: string, executionId: string): Promise<Execution | undefined> {
    return this.executions.get(tenantId, workflowId, executionId);
  }
  abandon(executionId: string): void {
    this.abandoned.push(executionId);
  }
  async room(): Promise<{ release(): void }> {
    return { release: () => undefined };
  }
}

/** Plans by tenant (free unless set), as identity keeps them. */
export class InMemoryPlans {
  readonly plans = new Map<string, string>();

  async planOf(tenantId: string): Promise<string> {
    return this.plans.get(tenantId) ?? 'free';
  }
}

/** Schedule claims in memory: what pause and delete ask (is a run of the workflow still starting?). */
export class InMemoryScheduleClaims {
  readonly starting = new Set<string>();

  async startingFor(workflowId: string): Promise<boolean> {
    return this.starting.has(workflowId);
  }
}

/** The workflow use cases' deps, every port in memory. */
export function inMemoryWorkflowDeps() {
  const workflows = new InMemoryWorkflows();
  const executions = new InMemoryExecutions();
  const fakes = {
    workflows,
    executions,
    claims: new InMemoryScheduleClaims(),
    engine: new FakeEngine(executions),
    agents: new InMemoryAgents(),
    credits: new InMemoryCredits(),
    plans: new InMemoryPlans(),
    outbox: new InMemoryOutbox(),
    quotas: new InMemoryQuotaCounter(),
    logger: createLogger('workflow', 'silent'),
    box: SecretBox.fromKeyring(SecretBox.generateKeyring('unit')),
    settings: { maxExecutionDurationMs: 60_000, retentionDays: 7 },
  };
  // The fakes implement the methods the use cases call (checked above); the repository classes
  // also carry their mongoose internals, which no use case sees.
  return { fakes, deps: fakes as unknown as UseCaseDeps };
}
