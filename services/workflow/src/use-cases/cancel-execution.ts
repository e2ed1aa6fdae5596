import { ConflictError, NotFoundError } from '@agentplatform/service-kit';
import { createEvent } from '@agentplatform/events/catalogue';
import { lineage, type Execution } from '../domain/execution.types.js';
import type { UseCaseDeps } from './deps.js';

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
 *
 * Cancelling a parent cancels its running children (the runs of its workflow and foreach nodes),
 * and theirs in turn; a child started while this runs is cancelled by its parent's node when the
 * parent's run stops (use-cases/run-child.ts).
 */
export async function cancelExecution(
  deps: Pick<UseCaseDeps, 'executions' | 'engine' | 'outbox'>,
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
    const base = { workflow_id: execution.workflowId, execution_id: execution.id, trigger: execution.trigger };
    const events = [
      ...(execution.startedEvent
        ? []
        : [
            createEvent('workflow.execution.started', execution.tenantId, {
              ...base,
              ...lineage(execution),
            }),
          ]),
      createEvent('workflow.execution.failed', execution.tenantId, {
        ...base,
        duration_ms: execution.durationMs ?? 0,
        error: 'execution cancelled',
        ...lineage(execution),
      }),
    ];
    return { result: execution, events };
  });
  if (cancelled) {
    deps.engine.abandon(cancelled.id);
    await cancelChildren(deps, cancelled);
    return cancelled;
  }
  const existing = await deps.executions.get(input.tenantId, input.workflowId, input.executionId);
  if (!existing) throw new NotFoundError('Execution');
  if (existing.status === 'cancelled') {
    await cancelChildren(deps, existing);
    return existing;
  }
  throw new ConflictError(`Execution is already ${existing.status}`);
}

async function cancelChildren(
  deps: Pick<UseCaseDeps, 'executions' | 'engine' | 'outbox'>,
  parent: Execution,
): Promise<void> {
  const children = await deps.executions.runningChildren(parent.tenantId, parent.id);
  await Promise.all(
    children.map((child) =>
      cancelExecution(deps, { tenantId: child.tenantId, workflowId: child.workflowId, executionId: child.id }).catch(
        // It ended on its own meanwhile.
        (error: unknown) => {
          if (!(error instanceof ConflictError)) throw error;
        },
      ),
    ),
  );
}
