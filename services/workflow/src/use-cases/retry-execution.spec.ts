import type { Execution, NodeExecution } from '../domain/execution.types.js';
import type { WorkflowNode } from '../domain/workflow.types.js';
import { inMemoryWorkflowDeps, newExecution } from '../testing/in-memory.js';
import { changeWorkflowStatus } from './change-workflow-status.js';
import { createWorkflow } from './create-workflow.js';
import { retryExecution } from './retry-execution.js';

const a: WorkflowNode = { id: 'a', type: 'transform', config: { fields: { x: 'input.x' } } };
const b: WorkflowNode = { id: 'b', type: 'transform', config: { fields: { y: 'a.x' } } };
const c: WorkflowNode = { id: 'c', type: 'transform', config: { fields: { z: 'b.y' } } };

const result = (nodeId: string, status: NodeExecution['status']): NodeExecution => ({
  nodeId,
  status,
  durationMs: 1,
  attempts: 1,
  ...(status === 'completed' ? { output: { [nodeId]: 1 } } : { error: 'boom' }),
});

async function setup(status: Execution['status'] = 'failed') {
  const { deps, fakes } = inMemoryWorkflowDeps();
  fakes.credits.balances.set('t1', 5);
  const workflow = await createWorkflow(deps, {
    tenantId: 't1',
    name: 'flow',
    description: '',
    nodes: [a, b, c],
    edges: [
      { source: 'a', target: 'b' },
      { source: 'b', target: 'c' },
    ],
  });
  // The run stopped at b: a completed, b failed, c never ran.
  const previous = newExecution([a, b, c], {
    workflowId: workflow.id,
    workflowVersion: workflow.version,
    status,
    input: { x: 42 },
    nodeExecutions: [result('a', 'completed'), result('b', 'failed')],
    completedAt: new Date(),
  });
  await fakes.executions.insert(previous);
  const retry = (input: { tenantId?: string; version?: 'failed' | 'current' } = {}) =>
    retryExecution(deps, { tenantId: 't1', executionId: previous.id, version: 'failed', ...input });
  return { deps, fakes, workflow, previous, retry };
}

describe('retryExecution', () => {
  it('starts a new manual run with the same input from where the failed one stopped, for a credit', async () => {
    const { fakes, previous, retry } = await setup();
    const execution = await retry();
    expect(execution.id).not.toBe(previous.id);
    expect(execution).toMatchObject({
      status: 'running',
      trigger: 'manual',
      retryOf: previous.id,
      input: { x: 42 },
      graph: previous.graph,
      workflowVersion: previous.workflowVersion,
    });
    // Only the completed node is reused: the run resumes at the node that failed.
    expect(execution.nodeExecutions).toEqual([result('a', 'completed')]);
    expect(fakes.credits.balances.get('t1')).toBe(4);
    expect(fakes.executions.byId.get(previous.id)).toMatchObject({ status: 'failed' });
  });

  it('retries a cancelled run too', async () => {
    const { retry, previous } = await setup('cancelled');
    await expect(retry()).resolves.toMatchObject({ retryOf: previous.id, status: 'running' });
  });

  it.each(['running', 'completed'] as const)('refuses a %s run (409) and charges nothing', async (status) => {
    const { fakes, retry } = await setup(status);
    await expect(retry()).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining(status) });
    expect(fakes.credits.balances.get('t1')).toBe(5);
    expect(fakes.executions.byId.size).toBe(1);
  });

  it("answers 404 for another tenant's execution and charges nothing", async () => {
    const { deps, fakes, retry } = await setup();
    fakes.credits.balances.set('t2', 5);
    await expect(retry({ tenantId: 't2' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      retryExecution(deps, { tenantId: 't1', executionId: 'exe_nope', version: 'failed' }),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect(fakes.credits.balances.get('t2')).toBe(5);
    expect(fakes.executions.byId.size).toBe(1);
  });

  it('refuses while the workflow is paused (409), and is 404 once it is deleted', async () => {
    const { deps, fakes, workflow, retry } = await setup();
    await changeWorkflowStatus(deps, { tenantId: 't1', workflowId: workflow.id, action: 'pause' });
    await expect(retry()).rejects.toMatchObject({ code: 'conflict' });
    await fakes.workflows.delete('t1', workflow.id);
    await expect(retry()).rejects.toMatchObject({ code: 'not_found' });
    expect(fakes.credits.balances.get('t1')).toBe(5);
  });

  it('with version current runs the edited graph: the edited node and everything after it run again', async () => {
    const { fakes, workflow, retry } = await setup();
    const edited: WorkflowNode = { ...a, config: { fields: { x: 'input.x + 1' } } };
    await fakes.workflows.update('t1', workflow.id, { nodes: [edited, b, c], version: 2, updatedAt: new Date() });
    const execution = await retry({ version: 'current' });
    expect(execution).toMatchObject({ workflowVersion: 2, graph: { nodes: [edited, b, c] } });
    expect(execution.nodeExecutions).toEqual([]);
    // The retried graph by default is still the one that failed.
    await expect(retry()).resolves.toMatchObject({ workflowVersion: 1, nodeExecutions: [result('a', 'completed')] });
  });

  it('refuses a retry without credit (402) and stores nothing', async () => {
    const { fakes, retry } = await setup();
    fakes.credits.balances.set('t1', 0);
    await expect(retry()).rejects.toMatchObject({ code: 'insufficient_credits' });
    expect(fakes.executions.byId.size).toBe(1);
  });

  it('keeps the place in a composition of the run it retries', async () => {
    const { fakes, previous, retry } = await setup();
    fakes.executions.byId.get(previous.id)!.depth = 2;
    await expect(retry()).resolves.toMatchObject({ depth: 2 });
  });
});
