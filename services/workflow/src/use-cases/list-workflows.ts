import { paging, ValidationError } from '@agentplatform/service-kit';
import { WORKFLOW_STATUSES, type Workflow } from '../domain/workflow.types.js';
import type { UseCaseDeps } from './deps.js';

export interface ListWorkflowsInput {
  tenantId: string;
  page: number;
  perPage: number;
  status?: string;
}

/** A page of the tenant's workflows, newest first, each with the start of its latest run. */
export async function listWorkflows(
  deps: Pick<UseCaseDeps, 'workflows' | 'executions'>,
  input: ListWorkflowsInput,
): Promise<{ items: Array<{ workflow: Workflow; lastRunAt?: Date }>; total: number; page: number; perPage: number }> {
  if (input.status !== undefined && !(WORKFLOW_STATUSES as readonly string[]).includes(input.status)) {
    throw ValidationError.field('status', `must be one of ${WORKFLOW_STATUSES.join(', ')}`);
  }
  const { page, perPage, skip } = paging(input.page, input.perPage);
  const { items, total } = await deps.workflows.list(input.tenantId, {
    skip,
    limit: perPage,
    status: input.status,
  });
  const last = await deps.executions.lastRunAt(
    input.tenantId,
    items.map((w) => w.id),
  );
  return { items: items.map((workflow) => ({ workflow, lastRunAt: last.get(workflow.id) })), total, page, perPage };
}
