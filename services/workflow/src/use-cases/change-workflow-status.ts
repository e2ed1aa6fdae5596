import { NotFoundError } from '@agentplatform/service-kit';
import type { Workflow } from '../domain/workflow.types.js';
import type { WorkflowDeps } from './deps.js';

/**
 * pause makes any workflow paused and resume makes any workflow active (DESIGN.md section 7);
 * both are idempotent, so a retried call answers the same state.
 */
export async function changeWorkflowStatus(
  deps: Pick<WorkflowDeps, 'workflows'>,
  input: { tenantId: string; workflowId: string; action: 'pause' | 'resume' },
): Promise<Workflow> {
  const status = input.action === 'pause' ? 'paused' : 'active';
  const workflow = await deps.workflows.setStatus(input.tenantId, input.workflowId, status, new Date());
  if (!workflow) throw new NotFoundError('Workflow');
  return workflow;
}
