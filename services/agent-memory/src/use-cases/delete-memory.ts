import { NotFoundError } from '@agentplatform/service-kit';
import type { UseCaseDeps } from './deps.js';
import { bumped } from './memory-version.js';

/** Deletes an item: its unit of the agent's memories quota comes back. */
export async function deleteMemory(deps: UseCaseDeps, input: { tenantId: string; memoryId: string }): Promise<void> {
  const { tenantId } = input;
  const deleted = await deps.memories.delete(tenantId, input.memoryId);
  if (!deleted) throw new NotFoundError('Memory item');
  await deps.quotas.release(deleted.agentId, 'memories');
  await bumped(deps, tenantId, deleted.agentId, { remove: [deleted.id] });
}
