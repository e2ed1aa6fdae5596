import { isDeepStrictEqual } from 'node:util';
import { ConflictError, NotFoundError, type FieldIssue } from '@agentplatform/service-kit';
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

/** Concurrent updates of one workflow: each is re-read and re-applied this often before a 409. */
const UPDATE_ATTEMPTS = 3;

/**
 * Changes name, description and/or graph; running executions keep the graph they started with.
 * A change of any of them bumps `version` (one write per version, conditional on the version it
 * read, so two concurrent updates never share a number).
 */
export async function updateWorkflow(
  deps: Pick<WorkflowDeps, 'workflows' | 'agents'>,
  input: UpdateWorkflowInput,
): Promise<Workflow> {
  for (let attempt = 1; attempt <= UPDATE_ATTEMPTS; attempt++) {
    const current = await deps.workflows.get(input.tenantId, input.workflowId);
    if (!current) throw new NotFoundError('Workflow');
    const issues: FieldIssue[] = [];
    checkName(input.name, issues, false);
    checkDescription(input.description, issues);
    const graph = { nodes: input.nodes ?? current.nodes, edges: input.edges ?? current.edges };
    await validateWorkflow(deps.agents, input.tenantId, graph, issues, {
      workflows: deps.workflows,
      selfId: current.id,
    });
    const changes = {
      ...(input.name !== undefined ? { name: input.name.trim() } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.nodes ? { nodes: input.nodes } : {}),
      ...(input.edges ? { edges: input.edges } : {}),
    };
    const changed = Object.entries(changes).some(
      ([key, value]) => !isDeepStrictEqual(value, current[key as keyof typeof changes]),
    );
    const updated = await deps.workflows.update(
      input.tenantId,
      input.workflowId,
      { ...changes, ...(changed ? { version: current.version + 1 } : {}), updated_at: new Date() },
      current.version,
    );
    if (updated) return updated;
  }
  if (!(await deps.workflows.get(input.tenantId, input.workflowId))) throw new NotFoundError('Workflow');
  throw new ConflictError('The workflow was changed by concurrent updates; try again');
}
