import { NotFoundError, paging, ValidationError } from '@agentplatform/service-kit';
import { EXECUTION_STATUSES, type Execution, type ExecutionStatus } from '../domain/execution.types.js';
import type { UseCaseDeps } from './deps.js';

/** A workflow's executions, newest first, optionally of one status; `total` counts all that match. */
export async function listExecutions(
  deps: Pick<UseCaseDeps, 'workflows' | 'executions'>,
  input: { tenantId: string; workflowId: string; limit: number; status?: string },
): Promise<{ items: Execution[]; total: number }> {
  if (input.status !== undefined && !(EXECUTION_STATUSES as readonly string[]).includes(input.status)) {
    throw ValidationError.field('status', `must be one of ${EXECUTION_STATUSES.join(', ')}`);
  }
  const workflow = await deps.workflows.get(input.tenantId, input.workflowId);
  if (!workflow) throw new NotFoundError('Workflow');
  const limit = paging(1, input.limit).perPage;
  return deps.executions.list(input.tenantId, workflow.id, {
    limit,
    status: input.status as ExecutionStatus | undefined,
  });
}
