import { NotFoundError } from '@agentplatform/service-kit';
import type { UseCaseDeps } from './deps.js';
import { waitForScheduledStarts } from './run-scheduled-ticks.js';

/**
 * Deletes a workflow and its execution history. An execution still running stops at its next
 * write (it no longer matches), so nothing of the workflow is left behind.
 */
export async function deleteWorkflow(
  deps: Pick<UseCaseDeps, 'workflows' | 'executions' | 'quotas' | 'claims'>,
  input: { tenantId: string; workflowId: string },
): Promise<void> {
  const deleted = await deps.workflows.delete(input.tenantId, input.workflowId);
  if (!deleted) throw new NotFoundError('Workflow');
  await deps.quotas.release(input.tenantId, 'workflows');
  // A scheduled run being started now must be stored before the history is deleted.
  await waitForScheduledStarts(deps.claims, input.workflowId);
  await deps.executions.deleteForWorkflow(input.tenantId, input.workflowId);
}
