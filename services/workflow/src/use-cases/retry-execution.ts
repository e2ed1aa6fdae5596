import { ConflictError, NotFoundError } from '@agentplatform/service-kit';
import type { Execution } from '../domain/execution.types.js';
import { reusableResults } from '../domain/retry.js';
import type { UseCaseDeps } from './deps.js';
import { admitManualRun } from './execute-workflow.js';
import { startExecution } from './start-execution.js';

export interface RetryExecutionInput {
  tenantId: string;
  executionId: string;
  /** `failed`: the graph the retried execution ran (default); `current`: the workflow's graph now. */
  version: 'failed' | 'current';
}

/**
 * Retries a failed or cancelled execution from where it stopped (docs/design.md section 7): a new run
 * (trigger manual, `retryOf` the old one, a credit like any run) with the same input, which starts
 * from the old run's completed nodes (domain/retry.ts) and runs the rest. Answers it running. Like
 * an execute, it is refused (429) while the tenant has its plan's executions in flight.
 */
export async function retryExecution(deps: UseCaseDeps, input: RetryExecutionInput): Promise<Execution> {
  const previous = await deps.executions.getById(input.tenantId, input.executionId);
  if (!previous) throw new NotFoundError('Execution');
  if (previous.status !== 'failed' && previous.status !== 'cancelled') {
    throw new ConflictError(`Only a failed or cancelled execution can be retried; this one is ${previous.status}`);
  }
  const workflow = await deps.workflows.get(input.tenantId, previous.workflowId);
  if (!workflow) throw new NotFoundError('Workflow');
  if (workflow.status === 'paused') throw new ConflictError('Workflow is paused; resume it to retry its executions');
  await admitManualRun(deps, input.tenantId);
  const current = input.version === 'current';
  const graph = current ? { nodes: workflow.nodes, edges: workflow.edges } : previous.graph;
  return startExecution(deps, {
    workflow,
    trigger: 'manual',
    input: previous.input,
    runFirst: false,
    seed: {
      graph,
      workflowVersion: current ? workflow.version : previous.workflowVersion,
      nodeExecutions: reusableResults(previous, graph),
      retryOf: previous.id,
      ...(previous.depth ? { depth: previous.depth } : {}),
    },
  });
}
