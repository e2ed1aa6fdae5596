import { inMemoryWorkflowDeps } from '../testing/in-memory.js';
import { changeWorkflowStatus } from './change-workflow-status.js';
import { createWorkflow } from './create-workflow.js';
import { deleteWorkflow } from './delete-workflow.js';
import { getWorkflow } from './get-workflow.js';
import { listWorkflows } from './list-workflows.js';
import { rotateHook } from './rotate-hook.js';
import { updateWorkflow } from './update-workflow.js';

const graph = { nodes: [{ id: 'shape', type: 'transform', config: { fields: { a: 'input.a' } } }], edges: [] };

function setup() {
  const { deps, fakes } = inMemoryWorkflowDeps();
  const create = (tenantId = 't1', extra: Partial<Parameters<typeof createWorkflow>[1]> = {}) =>
    createWorkflow(deps, { tenantId, name: 'flow', description: '', ...graph, ...extra });
  return { deps, fakes, create };
}

describe('workflow use cases against in-memory repositories', () => {
  it('creates a draft with a trimmed name and a hook id, and stores it for the tenant only', async () => {
    const { deps, create } = setup();
    const workflow = await create('t1', { name: '  flow  ' });
    expect(workflow).toMatchObject({ tenantId: 't1', name: 'flow', status: 'draft' });
    expect(workflow.hookId).toMatch(/^hk_[0-9A-Za-z]{32}$/);
    await expect(getWorkflow(deps, { tenantId: 't1', workflowId: workflow.id })).resolves.toMatchObject({
      workflow: { id: workflow.id },
      statistics: { totalRuns: 0, successRate: 0 },
    });
    await expect(getWorkflow(deps, { tenantId: 't2', workflowId: workflow.id })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('names every invalid field at once: empty name, long description, empty graph', async () => {
    const { create } = setup();
    const error = await create('t1', { name: ' ', description: 'x'.repeat(5_001), nodes: [] }).catch((e) => e);
    expect(error.code).toBe('validation_error');
    expect(error.details.map((d: { field: string }) => d.field)).toEqual(
      expect.arrayContaining(['name', 'description', 'nodes']),
    );
  });

  it("refuses an agent node whose agent is not the tenant's, naming the node", async () => {
    const { fakes, create } = setup();
    fakes.agents.add('t2', 'agt_1');
    const nodes = [{ id: 'ask', type: 'agent', config: { agent_id: 'agt_1' } }];
    await expect(create('t1', { nodes })).rejects.toMatchObject({
      details: [{ field: 'nodes[0].config.agent_id', message: "agent 'agt_1' not found" }],
    });
    fakes.agents.add('t1', 'agt_1');
    await expect(create('t1', { nodes })).resolves.toMatchObject({ nodes });
  });

  it('stops at the plan quota and counts a deleted workflow out again', async () => {
    const { deps, create } = setup();
    const made = [];
    for (let i = 0; i < 10; i++) made.push(await create('t1'));
    await expect(create('t1')).rejects.toMatchObject({ code: 'quota_exceeded' });
    await expect(create('t1', { plan: 'starter' })).resolves.toBeDefined();
    await create('t2');
    await deleteWorkflow(deps, { tenantId: 't1', workflowId: made[0].id });
    await deleteWorkflow(deps, { tenantId: 't1', workflowId: made[1].id });
    await expect(create('t1')).resolves.toBeDefined();
  });

  it('gives the quota unit back when the insert fails', async () => {
    const { fakes, create } = setup();
    fakes.workflows.insert = async () => {
      throw new Error('disk full');
    };
    await expect(create('t1')).rejects.toThrow('disk full');
    expect(fakes.quotas.counted('t1', 'workflows')).toBe(0);
  });

  it('updates only what is given, validates the resulting graph, and hides other tenants', async () => {
    const { deps, create } = setup();
    const workflow = await create('t1');
    const updated = await updateWorkflow(deps, { tenantId: 't1', workflowId: workflow.id, name: 'renamed' });
    expect(updated).toMatchObject({ name: 'renamed', nodes: graph.nodes, description: '' });
    await expect(updateWorkflow(deps, { tenantId: 't1', workflowId: workflow.id, nodes: [] })).rejects.toMatchObject({
      code: 'validation_error',
      details: [expect.objectContaining({ field: 'nodes' })],
    });
    await expect(updateWorkflow(deps, { tenantId: 't2', workflowId: workflow.id, name: 'x' })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('pauses and resumes idempotently; another tenant gets 404', async () => {
    const { deps, create } = setup();
    const { id } = await create('t1');
    const pause = { tenantId: 't1', workflowId: id, action: 'pause' as const };
    await expect(changeWorkflowStatus(deps, pause)).resolves.toMatchObject({ status: 'paused' });
    await expect(changeWorkflowStatus(deps, pause)).resolves.toMatchObject({ status: 'paused' });
    await expect(changeWorkflowStatus(deps, { ...pause, action: 'resume' })).resolves.toMatchObject({
      status: 'active',
    });
    await expect(changeWorkflowStatus(deps, { ...pause, tenantId: 't2' })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('lists newest first in pages, filters by status and refuses an unknown status', async () => {
    const { deps, create } = setup();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await create('t1', { name: `w${i}` })).id);
    await create('t2');
    const page = await listWorkflows(deps, { tenantId: 't1', page: 2, perPage: 2 });
    expect(page).toMatchObject({ total: 3, page: 2, perPage: 2 });
    expect(page.items).toHaveLength(1);
    const clamped = await listWorkflows(deps, { tenantId: 't1', page: 0, perPage: 1_000 });
    expect(clamped).toMatchObject({ page: 1, perPage: 100, total: 3 });
    await changeWorkflowStatus(deps, { tenantId: 't1', workflowId: ids[1], action: 'resume' });
    const active = await listWorkflows(deps, { tenantId: 't1', page: 1, perPage: 20, status: 'active' });
    expect(active.items.map((i) => i.workflow.id)).toEqual([ids[1]]);
    await expect(listWorkflows(deps, { tenantId: 't1', page: 1, perPage: 20, status: 'done' })).rejects.toMatchObject({
      details: [expect.objectContaining({ field: 'status' })],
    });
  });

  it('deletes the workflow with its executions; a second delete and other tenants get 404', async () => {
    const { deps, fakes, create } = setup();
    const { id } = await create('t1');
    await fakes.executions.insert({
      id: 'exe_1',
      tenantId: 't1',
      workflowId: id,
      workflowVersion: 1,
      status: 'completed',
      trigger: 'manual',
      input: {},
      graph,
      nodeExecutions: [],
      startedAt: new Date(),
      deadlineAt: new Date(),
      startedEvent: true,
    });
    await expect(deleteWorkflow(deps, { tenantId: 't2', workflowId: id })).rejects.toMatchObject({
      code: 'not_found',
    });
    await deleteWorkflow(deps, { tenantId: 't1', workflowId: id });
    expect(fakes.executions.byId.size).toBe(0);
    await expect(deleteWorkflow(deps, { tenantId: 't1', workflowId: id })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it("rotates the hook id of the tenant's workflow only", async () => {
    const { deps, create } = setup();
    const workflow = await create('t1');
    const rotated = await rotateHook(deps, { tenantId: 't1', workflowId: workflow.id });
    expect(rotated.hookId).not.toBe(workflow.hookId);
    await expect(rotateHook(deps, { tenantId: 't2', workflowId: workflow.id })).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});
