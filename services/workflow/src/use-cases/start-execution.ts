import { newId } from '@agentplatform/service-kit';
import type { Execution, ExecutionTrigger } from '../domain/execution.types.js';
import type { JsonObject, Workflow } from '../domain/workflow.types.js';
import type { WorkflowDeps } from './deps.js';

/**
 * Starts a run: charges its credit (402 when the balance is too low), stores the execution with a
 * snapshot of the graph and hands it to the engine, which runs it at once on this replica. With
 * `runFirst` a graph of pure nodes is finished before it is stored (ExecutionEngine.submit).
 * Answers the execution as it stands then: running, or already finished.
 */
export async function startExecution(
  deps: Pick<WorkflowDeps, 'engine' | 'credits' | 'logger' | 'settings'>,
  workflow: Workflow,
  trigger: ExecutionTrigger,
  input: JsonObject,
  options: { runFirst: boolean },
): Promise<Execution> {
  const id = newId('exe');
  await deps.credits.chargeRun(workflow.tenant_id, id, workflow.id);
  const now = new Date();
  const execution: Execution = {
    id,
    tenant_id: workflow.tenant_id,
    workflow_id: workflow.id,
    status: 'running',
    trigger,
    input,
    graph: { nodes: workflow.nodes, edges: workflow.edges },
    node_executions: [],
    started_at: now,
    deadline_at: new Date(now.getTime() + deps.settings.maxExecutionDurationMs),
    started_event: false,
  };
  try {
    return await deps.engine.submit(execution, options);
  } catch (error) {
    await deps.credits.refundRun(workflow.tenant_id, id).catch((refundError) => {
      deps.logger.error(
        { err: refundError, execution_id: id },
        'could not refund the credit of a run that did not start',
      );
    });
    throw error;
  }
}
