import type { FieldIssue } from '@agentplatform/service-kit';
import type { Workflow, WorkflowGraph, WorkflowNode } from '../domain/workflow.types.js';
import { InMemoryAgents, InMemoryWorkflows } from '../testing/in-memory.js';
import { checkDescription, checkName, checkSchedulePlan, validateWorkflow } from './validate-workflow.js';

const agentNode = (id: string, agentId: string): WorkflowNode => ({ id, type: 'agent', config: { agent_id: agentId } });
const callNode = (id: string, workflowId: string): WorkflowNode => ({
  id,
  type: 'workflow',
  config: { workflow_id: workflowId },
});
const transform: WorkflowNode = { id: 'shape', type: 'transform', config: {} };

function chain(...nodes: WorkflowNode[]): WorkflowGraph {
  return { nodes, edges: nodes.slice(1).map((n, i) => ({ source: nodes[i]!.id, target: n.id })) };
}

async function fieldsOf(work: Promise<unknown>): Promise<string[]> {
  const error = await work.then(
    () => undefined,
    (e: { code: string; details: FieldIssue[] }) => e,
  );
  expect(error).toMatchObject({ code: 'validation_error' });
  return error!.details.map((d) => d.field);
}

function setup() {
  const agents = new InMemoryAgents();
  agents.add('t1', 'agt_mine');
  agents.add('t2', 'agt_theirs');
  const workflows = new InMemoryWorkflows();
  const stored = (id: string, tenantId: string): Workflow => ({
    id,
    tenantId,
    hookId: `hk_${id}`,
    name: id,
    description: '',
    status: 'draft',
    version: 1,
    nodes: [transform],
    edges: [],
    createdAt: new Date(),
    updatedAt: new Date(),
  });
  void workflows.insert(stored('wf_child', 't1'));
  void workflows.insert(stored('wf_foreign', 't2'));
  return { agents, workflows };
}

describe('validateWorkflow', () => {
  it('accepts a graph whose agents and called workflows are the tenant’s own', async () => {
    const { agents, workflows } = setup();
    const graph = chain(agentNode('ask', 'agt_mine'), callNode('call', 'wf_child'));
    await expect(validateWorkflow(agents, 't1', graph, [], { workflows, selfId: 'wf_self' })).resolves.toBeUndefined();
  });

  it('names each bad node and edge by its place in the graph, with the issues the caller found', async () => {
    const { agents } = setup();
    const lookups = jest.spyOn(agents, 'agentExists');
    const graph: WorkflowGraph = {
      nodes: [transform, { id: 'shape', type: 'transform', config: {} }, { id: 'x', type: 'teleport', config: {} }],
      edges: [{ source: 'shape', target: 'nowhere' }],
    };
    const fields = await fieldsOf(
      validateWorkflow(agents, 't1', graph, [{ field: 'name', message: 'must not be empty' }]),
    );
    expect(fields).toEqual(expect.arrayContaining(['name', 'nodes[1].id', 'nodes[2].type', 'edges[0].target']));
    // An invalid graph is refused before any agent is looked up.
    expect(lookups).not.toHaveBeenCalled();
  });

  it('refuses an empty graph, naming nodes', async () => {
    const { agents } = setup();
    await expect(fieldsOf(validateWorkflow(agents, 't1', { nodes: [], edges: [] }, []))).resolves.toEqual(['nodes']);
  });

  it("names the agent node whose agent is missing or another tenant's", async () => {
    const { agents } = setup();
    const graph = chain(agentNode('a0', 'agt_mine'), agentNode('a1', 'agt_theirs'), agentNode('a2', 'agt_gone'));
    const error = await validateWorkflow(agents, 't1', graph, []).catch((e) => e);
    expect(error.details).toEqual([
      { field: 'nodes[1].config.agent_id', message: "agent 'agt_theirs' not found" },
      { field: 'nodes[2].config.agent_id', message: "agent 'agt_gone' not found" },
    ]);
  });

  it('refuses a workflow node calling itself, an unknown or another tenant’s workflow', async () => {
    const { agents, workflows } = setup();
    const graph = chain(callNode('c0', 'wf_self'), callNode('c1', 'wf_foreign'), callNode('c2', 'wf_child'));
    const error = await validateWorkflow(agents, 't1', graph, [], { workflows, selfId: 'wf_self' }).catch((e) => e);
    expect(error.details).toEqual([
      { field: 'nodes[0].config.workflow_id', message: 'a workflow cannot call itself' },
      { field: 'nodes[1].config.workflow_id', message: "workflow 'wf_foreign' not found" },
    ]);
  });

  it('finds no called workflow when the caller gives no way to look one up', async () => {
    const { agents } = setup();
    await expect(fieldsOf(validateWorkflow(agents, 't1', chain(callNode('c0', 'wf_child')), []))).resolves.toEqual([
      'nodes[0].config.workflow_id',
    ]);
  });
});

describe('name, description and schedule checks', () => {
  it('requires a name only when asked, and refuses a blank or too long one', () => {
    const issues: FieldIssue[] = [];
    checkName(undefined, issues, false);
    expect(issues).toEqual([]);
    checkName(undefined, issues, true);
    checkName('  ', issues, false);
    checkName('x'.repeat(201), issues, false);
    checkName('x'.repeat(200), issues, false);
    expect(issues).toEqual([
      { field: 'name', message: 'is required' },
      { field: 'name', message: 'must not be empty' },
      { field: 'name', message: 'must be at most 200 characters' },
    ]);
  });

  it('refuses a description over 5000 characters', () => {
    const issues: FieldIssue[] = [];
    checkDescription('x'.repeat(5_000), issues);
    expect(issues).toEqual([]);
    checkDescription('x'.repeat(5_001), issues);
    expect(issues).toEqual([{ field: 'description', message: 'must be at most 5000 characters' }]);
  });

  it('refuses a schedule firing more often than the plan allows, naming its cron', () => {
    const every30s = chain(transform, { id: 'tick', type: 'schedule', config: { cron: '*/30 * * * * *' } });
    const refusal = (plan: string) => {
      try {
        checkSchedulePlan(every30s, plan);
        return undefined;
      } catch (e) {
        return (e as { details: FieldIssue[] }).details;
      }
    };
    expect(refusal('free')).toEqual([{ field: 'nodes[1].config.cron', message: expect.stringContaining('free plan') }]);
    expect(refusal('pro')).toBeUndefined();
    // A plan this build does not know gets the free plan's minimum.
    expect(refusal('no-such-plan')).toEqual([
      expect.objectContaining({ message: expect.stringContaining('free plan') }),
    ]);
    const hourly = chain({ id: 'tick', type: 'schedule', config: { cron: '0 * * * *' } });
    expect(() => checkSchedulePlan(hourly, 'free')).not.toThrow();
  });
});
