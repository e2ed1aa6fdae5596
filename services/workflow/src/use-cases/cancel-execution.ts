import { ConflictError, NotFoundError } from '@agentplatform/service-kit';
import { createEvent } from '@agentplatform/events';
import type { Execution } from '../domain/execution.types.js';
import type { WorkflowDeps } from './deps.js';

/**
 * Cancels a running execution, whichever replica runs it: the status changes at once; in-flight
 * work is abandoned immediately here, or by the owning replica at its next lease renewal or write.
 * The outcome is announced as workflow.execution.failed with the error "execution cancelled"
 * (the event catalogue has no cancelled type), so subscribers see every started run end.
 *
 * The state change and its events are written in one outbox session (one transaction where the
 * deployment has them). Cancel is idempotent: an execution that is already cancelled answers as it
 * stands (a retry after a lost answer is not a conflict) and publishes nothing again; one that
 * completed or failed first is a 409.
 */
export async function cancelExecution(
  deps: Pick<WorkflowDeps, 'executions' | 'engine' | 'outbox'>,
  input: { tenantId: string; workflowId: string; executionId: string },
): Promise<Execution> {
  const cancelled = await deps.outbox.run(async (session) => {
    const execution = await deps.executions.cancel(
      input.tenantId,
      input.workflowId,
      input.executionId,
      new Date(),
      session,
    );
    if (!execution) return { result: undefined, events: [] };
    const base = { workflow_id: execution.workflow_id, execution_id: execution.id, trigger: execution.trigger };
    const events = [
      ...(execution.started_event ? [] : [createEvent('workflow.execution.started', execution.tenant_id, base)]),
      createEvent('workflow.execution.failed', execution.tenant_id, {
        ...base,
        duration_ms: execution.duration_ms ?? 0,
        error: 'execution cancelled',
      }),
    ];
    return { result: execution, events };
  });
  if (cancelled) {
    deps.engine.abandon(cancelled.id);
    return cancelled;
  }
  const existing = await deps.executions.get(input.tenantId, input.workflowId, input.executionId);
  if (!existing) throw new NotFoundError('Execution');
  if (existing.status === 'cancelled') return existing;
  throw new ConflictError(`Execution is already ${existing.status}`);
}
