import { NotFoundError } from '@agentplatform/service-kit';
import type { MemoryItem } from '../domain/memory.js';
import type { UseCaseDeps } from './deps.js';

/** One item of the tenant, or 404. */
export async function getMemory(deps: UseCaseDeps, input: { tenantId: string; memoryId: string }): Promise<MemoryItem> {
  const { tenantId } = input;
  const item = await deps.memories.find(tenantId, input.memoryId);
  if (!item) throw new NotFoundError('Memory item');
  return item;
}
