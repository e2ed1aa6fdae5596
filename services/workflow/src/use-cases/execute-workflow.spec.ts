import type { Execution } from '../domain/execution.types.js';
import type { WorkflowNode } from '../domain/workflow.types.js';
import { inMemoryWorkflowDeps } from '../testing/in-memory.js';
import { changeWorkflowStatus } from './change-workflow-status.js';
import { createWorkflow } from './create-workflow.js';
import { executeWorkflow } from './execute-workflow.js';
import { getExecution } from './get-execution.js';
import { listExecutions } from './list-executions.js';
import { pruneExecutions } from './prune-executions.js';
import { rotateHook } from './rotate-hook.js';
import { triggerHook } from './trigger-hook.js';

const transform: WorkflowNode = { id: 'shape', type: 'transform', config: { fields: { a: 'input.a' } } };
const hook: WorkflowNode = { id: 'in', type: 'webhook', config: { path: 'orders' } };

async function setup(nodes = [transform], credits = 10) {
  const { deps, fakes } = inMemoryWorkflowDeps();
  fakes.credits.balances.set('t1', credits);
  const edges = nodes.length > 1 ? [{ source: nodes[0].id, target: nodes[1].id }] : [];
  const workflow = await createWorkflow(deps, { tenantId: 't1', name: 'flow', description: '', nodes, edges });
  const run = (extra: { tenantId?: string; async?: boolean } = {}) =>
    executeWorkflow(deps, { tenantId: 't1', workflowId: workflow.id, input: { a: 1 }, async: false, ...extra });
  return { deps, fakes, workflow, run };
}

describe('running workflows against in-memory repositories', () => {
  it('charges one credit per run, stores a snapshot of the graph, and answers the finished run', async () => {
    const { fakes, workflow, run } = await setup();
    fakes.engine.finishWith = 'completed';
    const execution = await run();
    expect(execution).toMatchObject({ status: 'completed', trigger: 'manual', input: { a: 1 } });
    expect(execution.graph.nodes).toEqual(workflow.nodes);
    expect(fakes.credits.balances.get('t1')).toBe(9);
    expect(fakes.credits.settled).toEqual(new Set([execution.id]));
  });

  it('answers an async run while it is running', async () => {
    const { run } = await setup();
    await expect(run({ async: true })).resolves.toMatchObject({ status: 'running' });
  });

  it('refuses a paused workflow (409) and charges nothing', async () => {
    const { deps, fakes, workflow, run } = await setup();
    await changeWorkflowStatus(deps, { tenantId: 't1', workflowId: workflow.id, action: 'pause' });
    await expect(run()).rejects.toMatchObject({ code: 'conflict' });
    expect(fakes.credits.balances.get('t1')).toBe(10);
  });

  it("refuses a manual run (429, retry after) once the tenant has its plan's executions in flight", async () => {
    const { fakes, run } = await setup(undefined, 100);
    fakes.engine.finishWith = undefined;
    for (let i = 0; i < 50; i++) await run({ async: true });
    await expect(run({ async: true })).rejects.toMatchObject({ code: 'rate_limit_exceeded', retryAfter: 5 });
    expect(fakes.executions.byId.size).toBe(50);
    fakes.engine.limits.plans.set('t1', 'starter');
    await expect(run({ async: true })).resolves.toMatchObject({ status: 'running' });
  });

  it('refuses a run without credit (402) and stores no execution', async () => {
    const { fakes, run } = await setup(undefined, 0);
    await expect(run()).rejects.toMatchObject({ code: 'insufficient_credits' });
    expect(fakes.executions.byId.size).toBe(0);
  });

  it('gives the credit back when the engine cannot start the run', async () => {
    const { fakes, run } = await setup();
    fakes.engine.failWith = new Error('mongo down');
    await expect(run()).rejects.toThrow('mongo down');
    expect(fakes.credits.balances.get('t1')).toBe(10);
    expect(fakes.credits.held.size).toBe(0);
  });

  it("answers 404 for another tenant's workflow and execution", async () => {
    const { deps, fakes, workflow, run } = await setup();
    fakes.credits.balances.set('t2', 10);
    await expect(run({ tenantId: 't2' })).rejects.toMatchObject({ code: 'not_found' });
    const execution = await run({ async: true });
    const ids = { workflowId: workflow.id, executionId: execution.id };
    await expect(getExecution(deps, { tenantId: 't1', ...ids })).resolves.toMatchObject({ id: execution.id });
    await expect(getExecution(deps, { tenantId: 't2', ...ids })).rejects.toMatchObject({ code: 'not_found' });
    await expect(listExecutions(deps, { tenantId: 't2', workflowId: workflow.id, limit: 20 })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('lists executions by status and refuses an unknown status, naming the field', async () => {
    const { deps, fakes, workflow, run } = await setup();
    await run({ async: true });
    fakes.engine.finishWith = 'failed';
    await run();
    const input = { tenantId: 't1', workflowId: workflow.id, limit: 20 };
    await expect(listExecutions(deps, input)).resolves.toMatchObject({ total: 2 });
    const failed = await listExecutions(deps, { ...input, status: 'failed' });
    expect(failed.items.map((e) => e.status)).toEqual(['failed']);
    await expect(listExecutions(deps, { ...input, status: 'lost' })).rejects.toMatchObject({
      details: [expect.objectContaining({ field: 'status' })],
    });
  });

  it('prunes only finished executions older than the retention period', async () => {
    const { deps, fakes, run } = await setup();
    fakes.engine.finishWith = 'completed';
    const old = await run();
    const recent = await run();
    fakes.engine.finishWith = undefined;
    const running = await run({ async: true });
    const later = new Date(Date.now() + 8 * 24 * 60 * 60 * 1000);
    fakes.executions.byId.set(recent.id, { ...fakes.executions.byId.get(recent.id)!, completedAt: later });
    await expect(pruneExecutions(deps, { retentionDays: 7, keepPerWorkflow: 0, now: later })).resolves.toBe(1);
    expect([...fakes.executions.byId.keys()].sort()).toEqual([recent.id, running.id].sort());
    expect(fakes.executions.byId.has(old.id)).toBe(false);
  });
});

describe('triggerHook', () => {
  async function hooked() {
    const ctx = await setup([hook, transform]);
    await changeWorkflowStatus(ctx.deps, { tenantId: 't1', workflowId: ctx.workflow.id, action: 'resume' });
    const trigger = (hookId = ctx.workflow.hookId, path = '/orders/') =>
      triggerHook(ctx.deps, { hookId, path, input: { a: 2 } });
    return { ...ctx, trigger };
  }

  it('starts a run of an active workflow at its path, answering at once by default', async () => {
    const { trigger } = await hooked();
    const { execution, responseMode } = await trigger();
    expect(responseMode).toBe('immediate');
    expect(execution).toMatchObject<Partial<Execution>>({ trigger: 'webhook', input: { a: 2 } });
  });

  it('is not found for a draft or paused workflow, another path, a malformed or rotated id', async () => {
    const { deps, fakes, workflow, trigger } = await hooked();
    await expect(trigger(workflow.hookId, 'other')).rejects.toMatchObject({ code: 'not_found' });
    await expect(trigger('hk_short')).rejects.toMatchObject({ code: 'not_found' });
    await rotateHook(deps, { tenantId: 't1', workflowId: workflow.id });
    await expect(trigger(workflow.hookId)).rejects.toMatchObject({ code: 'not_found' });
    const rotated = (await deps.workflows.get('t1', workflow.id))!;
    await changeWorkflowStatus(deps, { tenantId: 't1', workflowId: workflow.id, action: 'pause' });
    await expect(trigger(rotated.hookId)).rejects.toMatchObject({ code: 'not_found' });
    expect(fakes.executions.byId.size).toBe(0);
    expect(fakes.credits.balances.get('t1')).toBe(10);
  });
});
