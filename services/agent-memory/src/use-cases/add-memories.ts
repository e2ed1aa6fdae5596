import { NotFoundError, ValidationError, type FieldIssue } from '@agentplatform/service-kit';
import { LIMITS } from '../domain/agent.js';
import type { MemoryItem } from '../domain/memory.js';
import { checkContent, checkMemoryType } from '../domain/memory-rules.js';
import { newItem } from './add-memory.js';
import type { UseCaseDeps } from './deps.js';
import { getAgent } from './manage-agents.js';

export interface MemoryBatchInput {
  agentId: string;
  items: Array<{ memoryType?: string; content: string; metadata?: Record<string, unknown> }>;
  /** The tenant's plan: the memories quota per agent (docs/design.md section 5). */
  plan?: string;
}

/** An item's issues, named by its place in the batch (`items[3].content`). */
const inBatch = (index: number, issues: FieldIssue[]): FieldIssue[] =>
  issues.map((issue) => ({ ...issue, field: `items[${index}].${issue.field}` }));

/**
 * Adds 1 to LIMITS.memoryBatch items to one agent, all or none: every item is checked before
 * anything is written (all issues reported together, each named by its place), the quota is taken
 * for the whole batch at once (a batch that does not fit is refused whole, however many parallel
 * batches race for the last units), then one insertMany and one version bump, in that order (see
 * MemoryWriter). Answers the stored items in the request's order, each as a single add answers it.
 *
 * A batch bypasses the single adds' group commit: it is a group already, and its quota is all or
 * none where a group's is per add. A crash inside the write leaves what a crashed single add
 * leaves: items stored without an answer, their vectors and version bump brought by the backlog.
 */
export async function addMemories(
  deps: UseCaseDeps,
  input: MemoryBatchInput & { tenantId: string },
): Promise<MemoryItem[]> {
  const { tenantId } = input;
  const issues: FieldIssue[] = [];
  if (!input.agentId) issues.push({ field: 'agent_id', message: 'is required' });
  const given = input.items ?? [];
  if (given.length === 0 || given.length > LIMITS.memoryBatch) {
    issues.push({ field: 'items', message: `must hold 1 to ${LIMITS.memoryBatch} items` });
  }
  const fields = given.map((item, i) => {
    const own: FieldIssue[] = [];
    const content = checkContent(item.content ?? '', own);
    const memoryType = checkMemoryType(undefined, item.memoryType ?? 'semantic', own);
    issues.push(...inBatch(i, own));
    return { content, memoryType, metadata: item.metadata ?? {} };
  });
  if (issues.length > 0) throw new ValidationError(issues);

  const agent = await getAgent(deps, { tenantId, agentId: input.agentId });
  fields.forEach((item, i) => {
    const own: FieldIssue[] = [];
    checkMemoryType(agent, item.memoryType, own);
    issues.push(...inBatch(i, own));
  });
  if (issues.length > 0) throw new ValidationError(issues);

  const items = fields.map((item) => newItem(agent, item));
  const release = await deps.quotas.acquire(
    agent.id,
    'memories',
    input.plan,
    () => deps.memories.count(tenantId, agent.id),
    items.length,
  );
  try {
    const inserted = await deps.memories.insertMany(items);
    const failed = inserted.find((outcome) => outcome !== undefined);
    if (failed) {
      await deps.memories.deleteIds(
        tenantId,
        items.filter((_, n) => inserted[n] === undefined).map((item) => item.id),
      );
      throw failed;
    }
  } catch (error) {
    await release().catch(() => undefined);
    throw error;
  }
  const bumpedAgent = await deps.agents.bumpMemoryVersion(tenantId, agent.id);
  if (bumpedAgent === undefined) {
    // Deleted since the read: its delete has removed (or is removing) its items; these too.
    await deps.memories.deleteIds(
      tenantId,
      items.map((item) => item.id),
    );
    deps.index.drop(tenantId, agent.id);
    throw new NotFoundError('Agent');
  }
  deps.index.apply(tenantId, agent.id, bumpedAgent.memoryVersion, { upsert: items });
  deps.backlog.kick(items);
  return items;
}
