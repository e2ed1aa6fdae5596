import type { WorkflowNode } from '../domain/workflow.types.js';
import { inMemoryWorkflowDeps } from '../testing/in-memory.js';
import { createWorkflow } from './create-workflow.js';
import { startExecution } from './start-execution.js';

const first: WorkflowNode = { id: 'a', type: 'transform', config: { fields: { x: 'input.x' } } };
const second: WorkflowNode = { id: 'b', type: 'transform', config: { fields: { y: 'a.x' } } };

async function setup(credits = 5) {
  const { deps, fakes } = inMemoryWorkflowDeps();
  fakes.credits.balances.set('t1', credits);
  const workflow = await createWorkflow(deps, {
    tenantId: 't1',
    name: 'flow',
    description: '',
    nodes: [first, second],
    edges: [{ source: 'a', target: 'b' }],
  });
  return { deps, fakes, workflow };
}

describe('startExecution', () => {
  it('reserves one credit under the run, stores a running snapshot of the graph, then settles', async () => {
    const { deps, fakes, workflow } = await setup();
    const execution = await startExecution(deps, { workflow, trigger: 'manual', input: { x: 1 }, runFirst: false });
    expect(execution).toMatchObject({
      tenantId: 't1',
      workflowId: workflow.id,
      status: 'running',
      trigger: 'manual',
      input: { x: 1 },
      workflowVersion: workflow.version,
      nodeExecutions: [],
      graph: { nodes: workflow.nodes, edges: workflow.edges },
    });
    expect(execution.id).toMatch(/^exe_/);
    expect(execution.deadlineAt.getTime() - execution.startedAt.getTime()).toBe(60_000);
    expect(fakes.executions.byId.get(execution.id)).toMatchObject({ status: 'running' });
    expect(fakes.credits.balances.get('t1')).toBe(4);
    expect(fakes.credits.settled).toEqual(new Set([execution.id]));
    expect(fakes.credits.held.size).toBe(0);
  });

  it('charges each run once: two runs take two credits', async () => {
    const { deps, fakes, workflow } = await setup(2);
    const start = () => startExecution(deps, { workflow, trigger: 'manual', input: {}, runFirst: false });
    const [one, two] = [await start(), await start()];
    expect(one.id).not.toBe(two.id);
    expect(fakes.credits.balances.get('t1')).toBe(0);
    await expect(start()).rejects.toMatchObject({ code: 'insufficient_credits' });
  });

  it('refuses a run without credit (402) before anything is stored', async () => {
    const { deps, fakes, workflow } = await setup(0);
    const submit = jest.spyOn(fakes.engine, 'submit');
    await expect(
      startExecution(deps, { workflow, trigger: 'manual', input: {}, runFirst: false }),
    ).rejects.toMatchObject({ code: 'insufficient_credits' });
    expect(submit).not.toHaveBeenCalled();
    expect(fakes.executions.byId.size).toBe(0);
  });

  it('gives the credit back when the engine cannot start the run', async () => {
    const { deps, fakes, workflow } = await setup();
    fakes.engine.failWith = new Error('mongo down');
    await expect(startExecution(deps, { workflow, trigger: 'manual', input: {}, runFirst: false })).rejects.toThrow(
      'mongo down',
    );
    expect(fakes.credits.balances.get('t1')).toBe(5);
    expect(fakes.credits.held.size).toBe(0);
    expect(fakes.credits.settled.size).toBe(0);
  });

  it('keeps the credit held when the chosen id was started already (the first start holds it)', async () => {
    const { deps, fakes, workflow } = await setup();
    fakes.engine.failWith = Object.assign(new Error('E11000 duplicate key error'), { code: 11000 });
    await expect(
      startExecution(deps, { workflow, trigger: 'schedule', input: {}, runFirst: false, seed: { id: 'exe_tick' } }),
    ).rejects.toMatchObject({ code: 11000 });
    expect(fakes.credits.held.get('exe_tick')).toBe('t1');
    expect(fakes.credits.balances.get('t1')).toBe(4);
  });

  it('starts with the seed: a chosen id, another graph and version, results to resume from', async () => {
    const { deps, fakes, workflow } = await setup();
    const graph = { nodes: [first], edges: [] };
    const done = { nodeId: 'a', status: 'completed' as const, durationMs: 1, output: { x: 1 }, attempts: 1 };
    const execution = await startExecution(deps, {
      workflow,
      trigger: 'manual',
      input: {},
      runFirst: false,
      seed: { id: 'exe_chosen', graph, workflowVersion: 7, nodeExecutions: [done], retryOf: 'exe_old', depth: 2 },
    });
    expect(execution).toMatchObject({
      id: 'exe_chosen',
      graph,
      workflowVersion: 7,
      nodeExecutions: [done],
      retryOf: 'exe_old',
      depth: 2,
    });
    expect(fakes.credits.settled).toEqual(new Set(['exe_chosen']));
  });

  it('answers the run already finished when the engine finished it first', async () => {
    const { deps, fakes, workflow } = await setup();
    fakes.engine.finishWith = 'completed';
    await expect(
      startExecution(deps, { workflow, trigger: 'manual', input: {}, runFirst: true }),
    ).resolves.toMatchObject({ status: 'completed' });
    expect(fakes.credits.balances.get('t1')).toBe(4);
  });
});
