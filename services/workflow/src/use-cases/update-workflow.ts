import { isDeepStrictEqual } from 'node:util';
import { ConflictError, NotFoundError, ValidationError, type FieldIssue } from '@agentplatform/service-kit';
import { nextTick, scheduleOf } from '../domain/schedule.js';
import { sealHeaders } from '../domain/sealed-headers.js';
import type { Workflow, WorkflowGraph } from '../domain/workflow.types.js';
import type { UseCaseDeps } from './deps.js';
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

/** Concurrent updates of one workflow: each is re-read and re-applied this often before a 409. */
const UPDATE_ATTEMPTS = 3;

/**
 * Changes name, description and/or graph; running executions keep the graph they started with.
 * A change of any of them bumps `version` (one write per version, conditional on the version it
 * read, so two concurrent updates never share a number).
 */
export async function updateWorkflow(
  deps: Pick<UseCaseDeps, 'workflows' | 'agents' | 'box'>,
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
    checkSchedulePlan(graph, input.plan);
    // New header values are sealed; "[set]" keeps the stored one while the node's origin stays.
    const nodes =
      input.nodes &&
      sealHeaders(deps.box, { tenantId: current.tenantId, workflowId: current.id }, input.nodes, current.nodes, issues);
    if (issues.length > 0) throw new ValidationError(issues);
    const changes = {
      ...(input.name !== undefined ? { name: input.name.trim() } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(nodes ? { nodes } : {}),
      ...(input.edges ? { edges: input.edges } : {}),
    };
    const changed = Object.entries(changes).some(
      ([key, value]) => !isDeepStrictEqual(value, current[key as keyof typeof changes]),
    );
    const updated = await deps.workflows.update(
      input.tenantId,
      input.workflowId,
      {
        ...changes,
        ...scheduleChange(current, graph),
        ...(changed ? { version: current.version + 1 } : {}),
        updatedAt: new Date(),
      },
      // The status too: nextRunAt is computed from it, and a pause in between must win.
      { version: current.version, status: current.status },
    );
    if (updated) return updated;
  }
  if (!(await deps.workflows.get(input.tenantId, input.workflowId))) throw new NotFoundError('Workflow');
  throw new ConflictError('The workflow was changed by concurrent updates; try again');
}

/**
 * An active workflow whose schedule changes starts over from the new schedule's next tick; one
 * whose schedule stays keeps its nextRunAt (so a due tick is not lost to an edit of its name).
 */
function scheduleChange(current: Workflow, graph: WorkflowGraph): Partial<Pick<Workflow, 'nextRunAt'>> {
  if (current.status !== 'active') return {};
  const before = scheduleOf(current.nodes);
  const after = scheduleOf(graph.nodes);
  if (before?.cron === after?.cron && before?.timezone === after?.timezone) return {};
  return { nextRunAt: after ? nextTick(after, new Date()) : null };
}
