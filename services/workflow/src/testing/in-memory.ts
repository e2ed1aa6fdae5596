import { InMemoryOutbox, InMemoryQuotaCounter } from '@agentplatform/testing/in-memory';
import {
  createLogger,
  InsufficientCreditsError,
  NotFoundError,
  planExecutionsInFlight,
  SecretBox,
} from '@agentplatform/service-kit';
import type { AgentDirectory, ChatReply } from '../clients/agents.client.js';
import type { CreditLedger } from '../clients/credits.client.js';
import type { Execution, ExecutionStatus, HeldRun } from '../domain/execution.types.js';
import type { WorkflowNode } from '../domain/workflow.types.js';
import { ExpressionError } from '../domain/expressions.js';
import { computeNode } from '../domain/node-expressions.js';
import { SandboxExpressionError, type ExpressionRunner } from '../engine/expression-sandbox.js';
import type { WhenBusy } from '../engine/execution-engine.js';
import type { HeldRunStore, InFlightLimit, InFlightLimits } from '../engine/ports.js';
import type { ExecutionRunner, UseCaseDeps } from '../use-cases/deps.js';
import { InMemoryExecutions, InMemoryScheduleClaims, InMemoryWorkflows } from './in-memory-stores.js';

export { InMemoryExecutions, InMemoryScheduleClaims, InMemoryWorkflows } from './in-memory-stores.js';

/** The tenants' lines of queued runs, as the held-run repository keeps them. */
export class InMemoryHeldRuns implements HeldRunStore {
  readonly entries: HeldRun[] = [];
  async add(run: HeldRun): Promise<void> {
    this.entries.push({ ...run });
  }
  async has(tenantId: string): Promise<boolean> {
    return this.entries.some((e) => e.tenantId === tenantId);
  }
  async first(tenantId: string, limit: number): Promise<HeldRun[]> {
    return this.entries.filter((e) => e.tenantId === tenantId).slice(0, limit);
  }
  async tenants(limit: number): Promise<string[]> {
    return [...new Set(this.entries.map((e) => e.tenantId))].slice(0, limit);
  }
  async remove(executionId: string): Promise<void> {
    const at = this.entries.findIndex((e) => e.executionId === executionId);
    if (at >= 0) this.entries.splice(at, 1);
  }
}

/** Each tenant's bound on executions in flight: its plan's (free unless set), lowered by `max`. */
export class InMemoryLimits implements InFlightLimits {
  readonly plans = new Map<string, string>();
  max = Number.POSITIVE_INFINITY;
  async limitOf(tenantId: string): Promise<InFlightLimit> {
    const plan = this.plans.get(tenantId) ?? 'free';
    return { plan, limit: Math.min(planExecutionsInFlight(plan), this.max) };
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
 * a run is finished at once when `finishWith` is set, as a graph of pure nodes would be. Over the
 * tenant's bound (`limits`), a run submitted to queue is stored queued.
 */
export class FakeEngine implements ExecutionRunner {
  failWith?: Error;
  finishWith?: ExecutionStatus;
  readonly abandoned: string[] = [];
  readonly limits = new InMemoryLimits();
  constructor(private readonly executions: InMemoryExecutions) {}

  async submit(execution: Execution, options: { whenBusy?: WhenBusy } = {}): Promise<Execution> {
    if (this.failWith) throw this.failWith;
    const queued = options.whenBusy === 'queue' && (await this.overLimit(execution.tenantId)) !== undefined;
    const stored: Execution = queued
      ? { ...execution, status: 'queued' }
      : this.finishWith
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
  async overLimit(tenantId: string): Promise<InFlightLimit | undefined> {
    const bound = await this.limits.limitOf(tenantId);
    const running = await this.executions.countRunning(tenantId, bound.limit);
    return running >= bound.limit ? bound : undefined;
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
    outbox: new InMemoryOutbox(),
    quotas: new InMemoryQuotaCounter(),
    logger: createLogger('workflow', 'silent'),
    box: SecretBox.fromKeyring(SecretBox.generateKeyring('unit')),
    settings: { maxExecutionDurationMs: 60_000, retentionDays: 7 },
  };
  const deps: UseCaseDeps = fakes;
  return { fakes, deps };
}
