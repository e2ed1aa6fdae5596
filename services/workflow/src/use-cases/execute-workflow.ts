import { ConflictError, NotFoundError } from '@agentplatform/service-kit';
import { isFinished, type Execution } from '../domain/execution.types.js';
import type { JsonObject } from '../domain/workflow.types.js';
import type { UseCaseDeps } from './deps.js';
import { startExecution } from './start-execution.js';

/** The longest a synchronous execute waits for the end (DESIGN.md section 7). */
export const MAX_WAIT_MS = 30_000;

export interface ExecuteWorkflowInput {
  tenantId: string;
  workflowId: string;
  input: JsonObject;
  async: boolean;
  waitMs?: number;
}

/**
 * A manual run, allowed in draft and active, refused (409) when paused. With async the answer is
 * the running execution; otherwise the finished one, or the running one after the wait.
 */
export async function executeWorkflow(deps: UseCaseDeps, input: ExecuteWorkflowInput): Promise<Execution> {
  const workflow = await deps.workflows.get(input.tenantId, input.workflowId);
  if (!workflow) throw new NotFoundError('Workflow');
  if (workflow.status === 'paused') throw new ConflictError('Workflow is paused; resume it to execute');
  const execution = await startExecution(deps, {
    workflow,
    trigger: 'manual',
    input: input.input,
    runFirst: !input.async,
  });
  if (input.async || isFinished(execution.status)) return execution;
  const wait = Math.min(MAX_WAIT_MS, input.waitMs && input.waitMs > 0 ? input.waitMs : MAX_WAIT_MS);
  return (await deps.engine.waitFor(input.tenantId, workflow.id, execution.id, wait)) ?? execution;
}
