import { NotFoundError, ValidationError, type FieldIssue } from '@agentplatform/service-kit';
import type { MemoryItem } from '../domain/memory.js';
import { checkContent, checkMemoryType } from '../domain/memory-rules.js';
import type { MemoryChanges } from '../persistence/memory.repository.js';
import type { UseCaseDeps } from './deps.js';
import { getMemory } from './get-memory.js';
import { bumped } from './memory-version.js';

/**
 * Changes an item's content, metadata or type (one enabled for its agent). New content waits for
 * a new vector (searchable lexically until then); the same content keeps its vector.
 */
export async function updateMemory(
  deps: UseCaseDeps,
  input: {
    tenantId: string;
    memoryId: string;
    content?: string;
    metadata?: Record<string, unknown>;
    memoryType?: string;
  },
): Promise<MemoryItem> {
  const { tenantId } = input;
  const issues: FieldIssue[] = [];
  const changes: MemoryChanges = {};
  if (input.content !== undefined) changes.content = checkContent(input.content, issues);
  if (issues.length > 0) throw new ValidationError(issues);
  const current = await getMemory(deps, { tenantId, memoryId: input.memoryId });
  if (input.memoryType !== undefined) {
    const agent = await deps.agents.find(tenantId, current.agentId);
    changes.memoryType = checkMemoryType(agent, input.memoryType, issues);
    if (issues.length > 0) throw new ValidationError(issues);
  }
  if (input.metadata !== undefined) changes.metadata = input.metadata;
  // Same content: the vector stays; new content: the item waits for a new one (lexical until then).
  if (changes.content === current.content) delete changes.content;
  const updated = await deps.memories.update(tenantId, input.memoryId, changes, new Date());
  if (!updated) throw new NotFoundError('Memory item');
  await bumped(deps, tenantId, updated.agentId, { upsert: [updated] });
  if (changes.content !== undefined) deps.backlog.kick([updated]);
  return updated;
}
