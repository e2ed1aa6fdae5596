import { NotFoundError } from '@agentplatform/service-kit';
import { newHookId } from '../domain/hook-id.js';
import type { Workflow } from '../domain/workflow.types.js';
import type { UseCaseDeps } from './deps.js';

/** A new secret hook id for the workflow (docs/design.md section 7); the old hook URL is a 404 at once. */
export async function rotateHook(
  deps: Pick<UseCaseDeps, 'workflows'>,
  input: { tenantId: string; workflowId: string },
): Promise<Workflow> {
  const workflow = await deps.workflows.rotateHook(input.tenantId, input.workflowId, newHookId(), new Date());
  if (!workflow) throw new NotFoundError('Workflow');
  return workflow;
}
