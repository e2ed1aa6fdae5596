import { NotFoundError } from '@agentplatform/service-kit';
import type { Execution } from '../domain/execution.types.js';
import type { UseCaseDeps } from './deps.js';

export async function getExecution(
  deps: Pick<UseCaseDeps, 'executions'>,
  input: { tenantId: string; workflowId: string; executionId: string },
): Promise<Execution> {
  // An empty workflow id (the MCP tool get_execution names none) finds it in any of the tenant's workflows.
  const execution = await deps.executions.get(input.tenantId, input.workflowId || undefined, input.executionId);
  if (!execution) throw new NotFoundError('Execution');
  return execution;
}
