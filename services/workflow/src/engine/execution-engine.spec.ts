import { InMemoryOutbox } from '@agentplatform/testing/in-memory';
import { SecretBox, createGuardedAgent, createLogger } from '@agentplatform/service-kit';
import type { Execution } from '../domain/execution.types.js';
import type { WorkflowNode } from '../domain/workflow.types.js';
import {
  InMemoryExecutions,
  InMemoryHeldRuns,
  InMemoryLimits,
  inlineExpressions,
  newExecution,
} from '../testing/in-memory.js';
import { ExecutionEngine } from './execution-engine.js';
import { ExpressionBudgetExceeded, type ExpressionRunner } from './expression-sandbox.js';

/**
 * The engine composed of its parts, against the in-memory fakes of its ports (the real ones are
 * exercised by the e2e specs): time limits, and the events each outcome stores.
 */
function setup(options: { defaultNodeTimeoutMs?: number; expressions?: ExpressionRunner } = {}) {
  const executions = new InMemoryExecutions();
  const outbox = new InMemoryOutbox();
  const engine = new ExecutionEngine({
    executions,
    line: new InMemoryHeldRuns(),
    limits: new InMemoryLimits(),
    outbox,
    runners: {
      agents: {} as never,
      http: createGuardedAgent({ allowPrivate: false }),
      expressions: options.expressions ?? inlineExpressions,
      box: SecretBox.fromKeyring(SecretBox.generateKeyring()),
    },
    logger: createLogger('engine-test', 'silent'),
    options: {
      leaseMs: 10_000,
      pollIntervalMs: 60_000,
      maxConcurrent: 10,
      maxConcurrentPerTenant: 8,
      defaultNodeTimeoutMs: options.defaultNodeTimeoutMs ?? 5_000,
      stopGraceMs: 10,
    },
  });
  return { engine, executions, outbox };
}

function execution(nodes: WorkflowNode[], maxDurationMs = 60_000, input?: Execution['input']): Execution {
  const now = new Date();
  return newExecution(nodes, {
    tenantId: 'ten_1',
    startedAt: now,
    deadlineAt: new Date(now.getTime() + maxDurationMs),
    ...(input ? { input } : {}),
  });
}

describe('ExecutionEngine', () => {
  it('runs pure nodes with one final write carrying the started and completed events', async () => {
    const { engine, executions, outbox } = setup();
    const run = execution([{ id: 't', type: 'transform', config: { fields: { m: 'input.n + 1' } } }]);
    await engine.submit(run);
    const done = await engine.waitFor('ten_1', 'wf_1', run.id, 2_000);
    expect(done).toMatchObject({ status: 'completed', output: { m: 2 } });
    expect(executions.ownerOf(run.id)).toBeNull();
    expect(outbox.types()).toEqual(['workflow.execution.started', 'workflow.execution.completed']);
    expect(executions.byId.get(run.id)?.nodeExecutions.map((n) => n.status)).toEqual(['completed']);
  });

  it('fails an execution that outlives its maximum duration', async () => {
    const { engine, outbox } = setup();
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
      failedNodeId: 'wait',
      error: expect.stringMatching(/maximum duration of 300 ms/),
    });
    expect(done?.nodeExecutions.find((n) => n.nodeId === 'after')).toBeUndefined();
    expect(outbox.types()).toEqual(['workflow.execution.started', 'workflow.execution.failed']);
  });

  it('abandons in-flight work when the execution is cancelled elsewhere', async () => {
    const { engine, executions, outbox } = setup();
    const run = execution([{ id: 'wait', type: 'delay', config: { ms: 5_000 } }]);
    await engine.submit(run);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await executions.cancel('ten_1', 'wf_1', run.id, new Date());
    const started = Date.now();
    engine.abandon(run.id);
    await engine.waitFor('ten_1', 'wf_1', run.id, 1_000);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(engine.activeCount).toBe(0);
    expect(executions.byId.get(run.id)?.status).toBe('cancelled');
    expect(outbox.types()).not.toContain('workflow.execution.completed');
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
    expect(done).toMatchObject({ status: 'failed', failedNodeId: 'check' });
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
    expect(done).toMatchObject({ status: 'failed', failedNodeId: 'check' });
    expect(done?.error).toMatch(
      /expression_budget_exceeded: expression 'L.all\(x, true\)' ran over its budget of 50 ms/,
    );
    expect(done?.nodeExecutions[0]?.output).toEqual({
      error: { code: 'expression_budget_exceeded', expression: 'L.all(x, true)', budget_ms: 50, resource: 'time' },
    });
    expect(calls).toBe(1);
  });

  it('fails a node whose output is over 1 MiB with output_too_large, without retrying it', async () => {
    const { engine, outbox } = setup();
    const node: WorkflowNode = {
      id: 'triple',
      type: 'transform',
      retry: { max_attempts: 3, backoff_ms: 1 },
      config: { fields: { s: 'input.s + input.s + input.s' } },
    };
    const fits = execution([node], 60_000, { s: 'x'.repeat(349_000) });
    const over = execution([node], 60_000, { s: 'x'.repeat(350_000) });
    await engine.submit(fits);
    await engine.submit(over);
    expect(await engine.waitFor('ten_1', 'wf_1', fits.id, 3_000)).toMatchObject({ status: 'completed' });
    const done = await engine.waitFor('ten_1', 'wf_1', over.id, 3_000);
    expect(done).toMatchObject({ status: 'failed', failedNodeId: 'triple', output: {} });
    expect(done?.error).toMatch(/output_too_large: the node's output is 1050008 bytes, over the limit of 1048576/);
    expect(done?.nodeExecutions[0]).toMatchObject({
      status: 'failed',
      attempts: 1,
      output: { error: { code: 'output_too_large', size_bytes: 1_050_008, limit_bytes: 1_048_576 } },
    });
    expect(outbox.types()).toContain('workflow.execution.failed');
  });
});
