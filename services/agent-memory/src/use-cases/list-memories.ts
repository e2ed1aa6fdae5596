import { paging, ValidationError, type FieldIssue } from '@agentplatform/service-kit';
import type { MemoryItem } from '../domain/memory.js';
import { checkMemoryType } from '../domain/memory-rules.js';
import type { UseCaseDeps } from './deps.js';
import { getAgent } from './manage-agents.js';

/** A page of the tenant's items, newest first, of one agent (which must exist) and type if given. */
export async function listMemories(
  deps: UseCaseDeps,
  input: { tenantId: string; agentId?: string; memoryType?: string; page: number; perPage: number },
): Promise<{ items: MemoryItem[]; total: number; page: number; perPage: number }> {
  const { tenantId } = input;
  if (input.memoryType) {
    const issues: FieldIssue[] = [];
    checkMemoryType(undefined, input.memoryType, issues);
    if (issues.length > 0) throw new ValidationError(issues);
  }
  if (input.agentId) await getAgent(deps, { tenantId, agentId: input.agentId });
  const { page, perPage, skip } = paging(input.page, input.perPage);
  // An agent's total is its memory count as its quota keeps it (docs/queries.md).
  const { agentId } = input;
  const count =
    agentId && !input.memoryType
      ? () => deps.quotas.count(agentId, 'memories', () => deps.memories.count(tenantId, agentId))
      : undefined;
  const { items, total } = await deps.memories.list(tenantId, input, skip, perPage, count);
  return { items, total, page, perPage };
}
