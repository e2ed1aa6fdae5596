import { NotFoundError, type FieldIssue } from '@agentplatform/service-kit';
import { nextTick, scheduleOf } from '../domain/schedule.js';
import type { Workflow, WorkflowGraph } from '../domain/workflow.types.js';
import type { WorkflowDeps } from './deps.js';
import { checkDescription, checkName, checkSchedulePlan, validateWorkflow } from './validate-workflow.js';

export interface UpdateWorkflowInput {
  tenantId: string;
  workflowId: string;
  name?: string;
  description?: string;
  /** Replace all nodes and/or all edges; the resulting graph is validated as on create. */
  nodes?: WorkflowGraph['nodes'];
  edges?: WorkflowGraph['edges'];
  /** The tenant's plan: it sets the smallest schedule interval. */
  plan?: string;
}

/** Changes name, description and/or graph; running executions keep the graph they started with. */
export async function updateWorkflow(
  deps: Pick<WorkflowDeps, 'workflows' | 'agents'>,
  input: UpdateWorkflowInput,
): Promise<Workflow> {
  const current = await deps.workflows.get(input.tenantId, input.workflowId);
  if (!current) throw new NotFoundError('Workflow');
  const issues: FieldIssue[] = [];
  checkName(input.name, issues, false);
  checkDescription(input.description, issues);
  const graph = { nodes: input.nodes ?? current.nodes, edges: input.edges ?? current.edges };
  await validateWorkflow(deps.agents, input.tenantId, graph, issues);
  checkSchedulePlan(graph, input.plan);
  const updated = await deps.workflows.update(input.tenantId, input.workflowId, {
    ...scheduleChange(current, graph),
    ...(input.name !== undefined ? { name: input.name.trim() } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.nodes ? { nodes: input.nodes } : {}),
    ...(input.edges ? { edges: input.edges } : {}),
    updated_at: new Date(),
  });
  if (!updated) throw new NotFoundError('Workflow');
  return updated;
}

/**
 * An active workflow whose schedule changes starts over from the new schedule's next tick; one
 * whose schedule stays keeps its next_run_at (so a due tick is not lost to an edit of its name).
 */
function scheduleChange(current: Workflow, graph: WorkflowGraph): Partial<Pick<Workflow, 'next_run_at'>> {
  if (current.status !== 'active') return {};
  const before = scheduleOf(current.nodes);
  const after = scheduleOf(graph.nodes);
  if (before?.cron === after?.cron && before?.timezone === after?.timezone) return {};
  return { next_run_at: after ? nextTick(after, new Date()) : null };
}
