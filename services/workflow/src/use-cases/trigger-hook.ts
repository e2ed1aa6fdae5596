import { NotFoundError } from '@agentplatform/service-kit';
import { HOOK_ID } from '../domain/hook-id.js';
import { isFinished, type Execution } from '../domain/execution.types.js';
import { hookPathOf, hookResponseMode, type JsonObject, type Workflow } from '../domain/workflow.types.js';
import type { UseCaseDeps } from './deps.js';
import { MAX_WAIT_MS } from './execute-workflow.js';
import { startExecution } from './start-execution.js';

export interface TriggerHookInput {
  hookId: string;
  path: string;
  input: JsonObject;
}

/** The workflow a hook starts: an active workflow whose webhook node is at this path; else not found. */
export async function resolveHook(
  deps: UseCaseDeps,
  hook: Pick<TriggerHookInput, 'hookId' | 'path'>,
): Promise<Workflow> {
  if (!HOOK_ID.test(hook.hookId)) throw new NotFoundError('Hook');
  const workflow = await deps.workflows.getForHook(hook.hookId);
  if (!workflow || workflow.status !== 'active') throw new NotFoundError('Hook');
  if (hook.path.replace(/^\/+|\/+$/g, '') !== hookPathOf(workflow)) throw new NotFoundError('Hook');
  return workflow;
}

/**
 * An inbound hook, addressed by the workflow's secret hook id: only an active workflow, at its
 * webhook node's path, starts a run; anything else is not found (so a hook URL reveals nothing
 * about workflows that are not live, and a rotated-out id nothing at all). A hook is never refused
 * for the tenant's executions in flight: its run queues and starts in turn.
 */
export async function triggerHook(
  deps: UseCaseDeps,
  input: TriggerHookInput,
): Promise<{ execution: Execution; responseMode: 'immediate' | 'last_node' }> {
  const workflow = await resolveHook(deps, input);
  // A hook answers 202 {execution_id} (or the result, with last_node): never a running status, so
  // a pure graph may finish before it is stored. Over the tenant's executions in flight it queues.
  const execution = await startExecution(deps, {
    workflow,
    trigger: 'webhook',
    input: input.input,
    runFirst: true,
    whenBusy: 'queue',
  });
  const responseMode = hookResponseMode(workflow);
  if (responseMode === 'immediate' || isFinished(execution.status)) return { execution, responseMode };
  const finished = await deps.engine.waitFor(workflow.tenantId, workflow.id, execution.id, MAX_WAIT_MS);
  return { execution: finished ?? execution, responseMode };
}
