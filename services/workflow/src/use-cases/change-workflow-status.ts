import { NotFoundError } from '@agentplatform/service-kit';
import { nextTick, scheduleOf } from '../domain/schedule.js';
import type { Workflow } from '../domain/workflow.types.js';
import type { UseCaseDeps } from './deps.js';
import { waitForScheduledStarts } from './run-scheduled-ticks.js';

/**
 * pause makes any workflow paused and resume makes any workflow active (docs/design.md section 7);
 * both are idempotent, so a retried call answers the same state. Resuming a scheduled workflow
 * sets next_run_at to its next tick; pausing clears it and answers only once no scheduled run of
 * the workflow is being started, so none starts after the pause answered.
 */
export async function changeWorkflowStatus(
  deps: Pick<UseCaseDeps, 'workflows' | 'claims'>,
  input: { tenantId: string; workflowId: string; action: 'pause' | 'resume' },
): Promise<Workflow> {
  const status = input.action === 'pause' ? 'paused' : 'active';
  // Conditional on the status and version read, so nextRunAt always matches the graph and status
  // it is written with; a concurrent change makes the loop read again.
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await deps.workflows.get(input.tenantId, input.workflowId);
    if (!current) throw new NotFoundError('Workflow');
    if (current.status === status) return current;
    const now = new Date();
    const schedule = status === 'active' ? scheduleOf(current.nodes) : undefined;
    const changed = await deps.workflows.setStatus(
      input.tenantId,
      input.workflowId,
      { status: current.status, version: current.version },
      { status, nextRunAt: schedule ? nextTick(schedule, now) : null },
      now,
    );
    if (!changed) continue;
    if (status === 'paused') await waitForScheduledStarts(deps.claims, input.workflowId);
    return changed;
  }
  throw new Error('workflow status kept changing concurrently');
}
