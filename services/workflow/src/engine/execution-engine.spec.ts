import type { Outbox } from '@agentplatform/events';
import { createGuardedAgent, createLogger } from '@agentplatform/service-kit';
import type { Execution } from '../domain/execution.types.js';
import type { WorkflowNode } from '../domain/workflow.types.js';
import type { ExecutionChanges, ExecutionRepository } from '../persistence/execution.repository.js';
import { ExpressionError } from '../domain/expressions.js';
import { computeNode } from '../domain/node-expressions.js';
import { ExecutionEngine } from './execution-engine.js';
import { ExpressionBudgetExceeded, SandboxExpressionError, type ExpressionRunner } from './expression-sandbox.js';

/**
 * The engine against an in-memory stand-in for its repository and outbox (the real ones are
 * exercised by the e2e specs): time limits, and the events each outcome stores.
 */
class MemoryExecutions {
  readonly docs = new Map<string, Execution>();
  async insert(execution: Execution) {
    this.docs.set(execution.id, structuredClone(execution));
  }
  async get(_t: string, _w: string, id: string) {
    return structuredClone(this.docs.get(id));
  }
  async save(execution: Pick<Execution, 'id'>, owner: string, changes: ExecutionChanges, unset: string[] = []) {
    const doc = this.docs.get(execution.id);
    if (!doc || doc.lease_owner !== owner) return false;
    Object.assign(doc, structuredClone(changes));
    for (const key of unset) delete (doc as unknown as Record<string, unknown>)[key];
    return true;
  }
  async renewLeases(owner: string, ids: string[]) {
    return new Set(ids.filter((id) => this.docs.get(id)?.lease_owner === owner));
  }
  async claimExpired() {
    return undefined;
  }
  async releaseLeases() {
    return undefined;
  }
}

/** CEL in this thread, without a budget (the sandbox itself is tested in expression-sandbox.spec.ts). */
const inlineExpressions: ExpressionRunner = {
  async compute({ node, scope }) {
    try {
      return computeNode(node, scope);
    } catch (error) {
      if (error instanceof ExpressionError) throw new SandboxExpressionError(error.message);
      throw error;
    }
  },
};

function setup(options: { defaultNodeTimeoutMs?: number; expressions?: ExpressionRunner } = {}) {
  const executions = new MemoryExecutions();
  const events: string[] = [];
  const outbox = {
    async run<T>(work: () => Promise<{ result: T; events: Array<{ type: string }> }>) {
      const outcome = await work();
      events.push(...outcome.events.map((e) => e.type));
      return outcome.result;
    },
  } as unknown as Outbox;
  const engine = new ExecutionEngine({
    executions: executions as unknown as ExecutionRepository,
    outbox,
    runners: {
      agents: {} as never,
      http: createGuardedAgent({ allowPrivate: false }),
      expressions: options.expressions ?? inlineExpressions,
    },
    logger: createLogger('engine-test', 'silent'),
    options: {
      leaseMs: 10_000,
      pollIntervalMs: 60_000,
      maxConcurrent: 10,
      defaultNodeTimeoutMs: options.defaultNodeTimeoutMs ?? 5_000,
      stopGraceMs: 10,
    },
  });
  return { engine, executions, events };
}

function execution(nodes: WorkflowNode[], maxDurationMs = 60_000): Execution {
  const now = new Date();
  return {
    id: `exe_${Math.random().toString(36).slice(2)}`,
    tenant_id: 'ten_1',
    workflow_id: 'wf_1',
    workflow_version: 1,
    status: 'running',
    trigger: 'manual',
    input: { n: 1 },
    graph: { nodes, edges: nodes.slice(1).map((n, i) => ({ source: nodes[i]!.id, target: n.id })) },
    node_executions: [],
    started_at: now,
    deadline_at: new Date(now.getTime() + maxDurationMs),
    started_event: false,
  };
}

describe('ExecutionEngine', () => {
  it('runs pure nodes with one final write carrying the started and completed events', async () => {
    const { engine, executions, events } = setup();
    const run = execution([{ id: 't', type: 'transform', config: { fields: { m: 'input.n + 1' } } }]);
    await engine.submit(run);
    const done = await engine.waitFor('ten_1', 'wf_1', run.id, 2_000);
    expect(done).toMatchObject({ status: 'completed', output: { m: 2 }, lease_owner: null });
    expect(events).toEqual(['workflow.execution.started', 'workflow.execution.completed']);
    expect(executions.docs.get(run.id)?.node_executions.map((n) => n.status)).toEqual(['completed']);
  });

  it('fails an execution that outlives its maximum duration', async () => {
    const { engine, events } = setup();
    const run = execution(
      [
        { id: 'wait', type: 'delay', config: { ms: 2_000 } },
        { id: 'after', type: 'transform', config: {} },
      ],
      300,
    );
    await engine.submit(run);
    const done = await engine.waitFor('ten_1', 'wf_1', run.id, 3_000);
    expect(done).toMatchObject({
      status: 'failed',
      failed_node_id: 'wait',
      error: expect.stringMatching(/maximum duration of 300 ms/),
    });
    expect(done?.node_executions.find((n) => n.node_id === 'after')).toBeUndefined();
    expect(events).toEqual(['workflow.execution.started', 'workflow.execution.failed']);
  });

  it('abandons in-flight work when the execution is cancelled elsewhere', async () => {
    const { engine, executions, events } = setup();
    const run = execution([{ id: 'wait', type: 'delay', config: { ms: 5_000 } }]);
    await engine.submit(run);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const doc = executions.docs.get(run.id)!;
    Object.assign(doc, { status: 'cancelled', lease_owner: null });
    const started = Date.now();
    engine.abandon(run.id);
    await engine.waitFor('ten_1', 'wf_1', run.id, 1_000);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(engine.activeCount).toBe(0);
    expect(executions.docs.get(run.id)?.status).toBe('cancelled');
    expect(events).not.toContain('workflow.execution.completed');
  });

  it('bounds a pure node by its timeout_ms while its expressions are evaluated', async () => {
    const hanging: ExpressionRunner = {
      compute: (_request, signal) =>
        new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    };
    const { engine } = setup({ expressions: hanging });
    const run = execution([
      // A macro: not under the static bound, so it goes to the (here: hanging) sandbox.
      { id: 'check', type: 'condition', timeout_ms: 100, config: { rules: [{ if: '[1].all(x, true)', goto: 'x' }] } },
    ]);
    const started = Date.now();
    await engine.submit(run);
    const done = await engine.waitFor('ten_1', 'wf_1', run.id, 3_000);
    expect(done).toMatchObject({ status: 'failed', failed_node_id: 'check' });
    expect(done?.error).toMatch(/timed out after 100 ms/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('fails a condition over its expression budget at once, without retrying it', async () => {
    let calls = 0;
    const bomb: ExpressionRunner = {
      async compute() {
        calls++;
        throw new ExpressionBudgetExceeded('L.all(x, true)', 50, 'time');
      },
    };
    const { engine } = setup({ expressions: bomb });
    const run = execution([
      {
        id: 'check',
        type: 'condition',
        retry: { max_attempts: 3, backoff_ms: 1 },
        config: { rules: [{ if: 'L.all(x, true)', goto: 'x' }] },
      },
    ]);
    await engine.submit(run);
    const done = await engine.waitFor('ten_1', 'wf_1', run.id, 3_000);
    expect(done).toMatchObject({ status: 'failed', failed_node_id: 'check' });
    expect(done?.error).toMatch(
      /expression_budget_exceeded: expression 'L.all\(x, true\)' ran over its budget of 50 ms/,
    );
    expect(done?.node_executions[0]?.output).toEqual({
      error: { code: 'expression_budget_exceeded', expression: 'L.all(x, true)', budget_ms: 50, resource: 'time' },
    });
    expect(calls).toBe(1);
  });
});
