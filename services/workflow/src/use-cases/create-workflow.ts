import { newId, ValidationError, type FieldIssue } from '@agentplatform/service-kit';
import { newHookId } from '../domain/hook-id.js';
import { sealHeaders } from '../domain/sealed-headers.js';
import type { Workflow, WorkflowGraph } from '../domain/workflow.types.js';
import type { UseCaseDeps } from './deps.js';
import { checkDescription, checkName, checkSchedulePlan, validateWorkflow } from './validate-workflow.js';

export interface CreateWorkflowInput extends WorkflowGraph {
  tenantId: string;
  /** The tenant's plan: it sets the workflow quota. */
  plan?: string;
  name: string;
  description: string;
}

/** A new workflow starts as draft (docs/design.md section 7). */
export async function createWorkflow(
  deps: Pick<UseCaseDeps, 'workflows' | 'executions' | 'agents' | 'quotas' | 'box'>,
  input: CreateWorkflowInput,
): Promise<Workflow> {
  const issues: FieldIssue[] = [];
  checkName(input.name, issues, true);
  checkDescription(input.description, issues);
  await validateWorkflow(deps.agents, input.tenantId, { nodes: input.nodes, edges: input.edges }, issues, {
    workflows: deps.workflows,
  });
  checkSchedulePlan({ nodes: input.nodes, edges: input.edges }, input.plan);
  const id = newId('wf');
  // Header values are stored sealed; "[set]" has nothing to keep on a new workflow.
  const nodes = sealHeaders(deps.box, { tenantId: input.tenantId, workflowId: id }, input.nodes, [], issues);
  if (issues.length > 0) throw new ValidationError(issues);
  const now = new Date();
  const workflow: Workflow = {
    id,
    tenantId: input.tenantId,
    hookId: newHookId(),
    name: input.name.trim(),
    description: input.description,
    status: 'draft',
    nextRunAt: null,
    version: 1,
    nodes,
    edges: input.edges,
    createdAt: now,
    updatedAt: now,
  };
  const release = await deps.quotas.acquire(input.tenantId, 'workflows', input.plan, () =>
    deps.workflows.count(input.tenantId),
  );
  try {
    // The window before the workflow: a crash in between leaves an empty window of no workflow,
    // never a workflow whose runs must be looked for.
    await deps.executions.openWorkflow(workflow.id);
    await deps.workflows.insert(workflow);
  } catch (error) {
    await release();
    throw error;
  }
  return workflow;
}
