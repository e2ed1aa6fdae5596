import { NotFoundError, type FieldIssue } from '@agentplatform/service-kit';
import type { Workflow, WorkflowGraph } from '../domain/workflow.types.js';
import type { WorkflowDeps } from './deps.js';
import { checkDescription, checkName, validateWorkflow } from './validate-workflow.js';

export interface UpdateWorkflowInput {
  tenantId: string;
  workflowId: string;
  name?: string;
  description?: string;
  /** Replace all nodes and/or all edges; the resulting graph is validated as on create. */
  nodes?: WorkflowGraph['nodes'];
  edges?: WorkflowGraph['edges'];
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
  const updated = await deps.workflows.update(input.tenantId, input.workflowId, {
    ...(input.name !== undefined ? { name: input.name.trim() } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.nodes ? { nodes: input.nodes } : {}),
    ...(input.edges ? { edges: input.edges } : {}),
    updated_at: new Date(),
  });
  if (!updated) throw new NotFoundError('Workflow');
  return updated;
}
