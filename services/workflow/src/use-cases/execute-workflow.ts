import { ConflictError, DomainError, NotFoundError } from '@agentplatform/service-kit';
import { isFinished, type Execution } from '../domain/execution.types.js';
import { LIMITS } from '../domain/node-config.js';
import type { JsonObject } from '../domain/workflow.types.js';
import type { UseCaseDeps } from './deps.js';
import { startExecution } from './start-execution.js';

/** The longest a synchronous execute waits for the end (docs/design.md section 7). */
export const MAX_WAIT_MS = 30_000;

/** When a caller refused for executions in flight may try again: about when short runs have ended. */
export const IN_FLIGHT_RETRY_AFTER_S = 5;

export interface ExecuteWorkflowInput {
  tenantId: string;
  workflowId: string;
  input: JsonObject;
  async: boolean;
  waitMs?: number;
  /** Where the run starts in a chain of compositions (an agent's workflow tool: its chat's + 1). */
  depth?: number;
}

/**
 * A tenant may have its plan's number of executions in flight (docs/design.md section 5); a
 * manual run over it is refused with 429 and a time to retry. Hook and schedule runs queue
 * instead, and child runs wait for their turn, so a fan-out never fails because of its own children.
 */
export async function admitManualRun(deps: Pick<UseCaseDeps, 'engine'>, tenantId: string): Promise<void> {
  const over = await deps.engine.overLimit(tenantId);
  if (!over) return;
  throw new DomainError(
    'rate_limit_exceeded',
    `${over.limit} executions in flight, the most the ${over.plan} plan allows; retry once some have finished`,
    [],
    IN_FLIGHT_RETRY_AFTER_S,
  );
}

/**
 * A manual run, allowed in draft and active, refused (409) when paused and (429) when the tenant
 * has its plan's executions in flight. With async the answer is the running execution; otherwise
 * the finished one, or the running one after the wait.
 */
export async function executeWorkflow(deps: UseCaseDeps, input: ExecuteWorkflowInput): Promise<Execution> {
  const workflow = await deps.workflows.get(input.tenantId, input.workflowId);
  if (!workflow) throw new NotFoundError('Workflow');
  if (workflow.status === 'paused') throw new ConflictError('Workflow is paused; resume it to execute');
  const depth = input.depth ?? 0;
  // An agent's workflow tool that reaches the agent again (through an agent node) goes one level
  // deeper each round: the same limit as nested workflow nodes ends it.
  if (depth > LIMITS.maxNestingDepth) {
    throw new ConflictError(
      `nesting deeper than ${LIMITS.maxNestingDepth} levels: an agent's workflow tool was called ${depth} levels deep`,
    );
  }
  await admitManualRun(deps, input.tenantId);
  const execution = await startExecution(deps, {
    workflow,
    trigger: 'manual',
    input: input.input,
    runFirst: !input.async,
    ...(depth > 0 ? { seed: { depth } } : {}),
  });
  if (input.async || isFinished(execution.status)) return execution;
  const wait = Math.min(MAX_WAIT_MS, input.waitMs && input.waitMs > 0 ? input.waitMs : MAX_WAIT_MS);
  return (await deps.engine.waitFor(input.tenantId, workflow.id, execution.id, wait)) ?? execution;
}
