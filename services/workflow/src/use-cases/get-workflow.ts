import { NotFoundError } from '@agentplatform/service-kit';
import { statisticsFrom } from '../domain/statistics.js';
import type { Workflow, WorkflowStatistics } from '../domain/workflow.types.js';
import type { UseCaseDeps } from './deps.js';

export interface WorkflowDetails {
  workflow: Workflow;
  statistics: WorkflowStatistics;
  lastRunAt?: Date;
}

/** One workflow with its run statistics (computed from the retained executions). */
export async function getWorkflow(
  deps: Pick<UseCaseDeps, 'workflows' | 'executions'>,
  input: { tenantId: string; workflowId: string },
): Promise<WorkflowDetails> {
  const workflow = await deps.workflows.get(input.tenantId, input.workflowId);
  if (!workflow) throw new NotFoundError('Workflow');
  const [counts, last] = await Promise.all([
    deps.executions.statusCounts(input.tenantId, workflow.id),
    deps.executions.lastRunAt(input.tenantId, [workflow.id]),
  ]);
  return { workflow, statistics: statisticsFrom(counts), lastRunAt: last.get(workflow.id) };
}
