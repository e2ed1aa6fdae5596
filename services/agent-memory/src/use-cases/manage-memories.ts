import { newId, NotFoundError, ValidationError, type FieldIssue, paging } from '@agentplatform/service-kit';
import { LIMITS, MEMORY_TYPES, type Agent, type MemoryType } from '../domain/agent.js';
import type { MemoryItem } from '../domain/memory.js';
import type { MemoryChanges } from '../persistence/memory.repository.js';
import type { UseCaseDeps } from './deps.js';

export interface MemoryInput {
  agentId: string;
  memoryType?: string;
  content: string;
  metadata?: Record<string, unknown>;
}

function checkContent(content: string, issues: FieldIssue[]): string {
  const trimmed = content.trim();
  if (trimmed === '') issues.push({ field: 'content', message: 'must not be empty' });
  else if (content.length > LIMITS.memoryContent) {
    issues.push({ field: 'content', message: `must be at most ${LIMITS.memoryContent} characters` });
  }
  return trimmed;
}

/** A memory type must be a known one and enabled in the agent's memory_types. */
export function checkMemoryType(agent: Agent | undefined, value: string, issues: FieldIssue[]): MemoryType {
  if (!(MEMORY_TYPES as readonly string[]).includes(value)) {
    issues.push({ field: 'memory_type', message: `must be one of ${MEMORY_TYPES.join(', ')}` });
  } else if (agent && !agent.memoryTypes.includes(value as MemoryType)) {
    issues.push({
      field: 'memory_type',
      message: `is not enabled for this agent (memory_types: ${agent.memoryTypes.join(', ') || 'none'})`,
    });
  }
  return value as MemoryType;
}

async function findAgent(deps: UseCaseDeps, tenantId: string, agentId: string): Promise<Agent> {
  const agent = agentId ? await deps.agents.find(tenantId, agentId) : undefined;
  if (!agent) throw new NotFoundError('Agent');
  return agent;
}

/**
 * Stores an item, then bumps the agent's memory version (after the write: see MemoryIndexCache)
 * and applies the item to this replica's cached index: it is lexically searchable at once. Its
 * vector comes from the embedding backlog, off the request path.
 */
export async function storeMemory(
  deps: UseCaseDeps,
  agent: Agent,
  input: { memoryType: MemoryType; content: string; metadata: Record<string, unknown> },
): Promise<MemoryItem> {
  const now = new Date();
  const item: MemoryItem = {
    id: newId('mem'),
    tenantId: agent.tenantId,
    agentId: agent.id,
    memoryType: input.memoryType,
    content: input.content,
    metadata: input.metadata,
    mergedFrom: [],
    createdAt: now,
    updatedAt: now,
  };
  await deps.memories.insert(item);
  await bumped(deps, agent.tenantId, agent.id, { upsert: [item] });
  deps.backlog.kick();
  return item;
}

export async function bumped(
  deps: UseCaseDeps,
  tenantId: string,
  agentId: string,
  change: { upsert?: MemoryItem[]; remove?: string[] },
): Promise<void> {
  const version = await deps.agents.bumpMemoryVersion(tenantId, agentId);
  if (version === undefined) deps.index.drop(tenantId, agentId);
  else deps.index.apply(tenantId, agentId, version, change);
}

export async function addMemory(
  deps: UseCaseDeps,
  tenantId: string,
  input: MemoryInput,
  plan: string | undefined,
): Promise<MemoryItem> {
  const issues: FieldIssue[] = [];
  if (!input.agentId) issues.push({ field: 'agent_id', message: 'is required' });
  const content = checkContent(input.content ?? '', issues);
  if (issues.length > 0) throw new ValidationError(issues);
  const agent = await findAgent(deps, tenantId, input.agentId);
  const memoryType = checkMemoryType(agent, input.memoryType ?? 'semantic', issues);
  if (issues.length > 0) throw new ValidationError(issues);
  const release = await deps.quotas.acquire(agent.id, 'memories', plan, () => deps.memories.count(tenantId, agent.id));
  try {
    return await storeMemory(deps, agent, { memoryType, content, metadata: input.metadata ?? {} });
  } catch (error) {
    await release();
    throw error;
  }
}

export async function getMemory(deps: UseCaseDeps, tenantId: string, memoryId: string): Promise<MemoryItem> {
  const item = await deps.memories.find(tenantId, memoryId);
  if (!item) throw new NotFoundError('Memory item');
  return item;
}

export async function listMemories(
  deps: UseCaseDeps,
  tenantId: string,
  query: { agentId?: string; memoryType?: string; page: number; perPage: number },
): Promise<{ items: MemoryItem[]; total: number; page: number; perPage: number }> {
  if (query.memoryType) {
    const issues: FieldIssue[] = [];
    checkMemoryType(undefined, query.memoryType, issues);
    if (issues.length > 0) throw new ValidationError(issues);
  }
  if (query.agentId) await findAgent(deps, tenantId, query.agentId);
  const { page, perPage } = paging(query.page, query.perPage);
  const { items, total } = await deps.memories.list(tenantId, query, page, perPage);
  return { items, total, page, perPage };
}

export async function updateMemory(
  deps: UseCaseDeps,
  tenantId: string,
  memoryId: string,
  input: { content?: string; metadata?: Record<string, unknown>; memoryType?: string },
): Promise<MemoryItem> {
  const issues: FieldIssue[] = [];
  const changes: MemoryChanges = {};
  if (input.content !== undefined) changes.content = checkContent(input.content, issues);
  if (issues.length > 0) throw new ValidationError(issues);
  const current = await getMemory(deps, tenantId, memoryId);
  if (input.memoryType !== undefined) {
    const agent = await deps.agents.find(tenantId, current.agentId);
    changes.memoryType = checkMemoryType(agent, input.memoryType, issues);
    if (issues.length > 0) throw new ValidationError(issues);
  }
  if (input.metadata !== undefined) changes.metadata = input.metadata;
  // Same content: the vector stays; new content: the item waits for a new one (lexical until then).
  if (changes.content === current.content) delete changes.content;
  const updated = await deps.memories.update(tenantId, memoryId, changes, new Date());
  if (!updated) throw new NotFoundError('Memory item');
  await bumped(deps, tenantId, updated.agentId, { upsert: [updated] });
  if (changes.content !== undefined) deps.backlog.kick();
  return updated;
}

export async function deleteMemory(deps: UseCaseDeps, tenantId: string, memoryId: string): Promise<void> {
  const deleted = await deps.memories.delete(tenantId, memoryId);
  if (!deleted) throw new NotFoundError('Memory item');
  await deps.quotas.release(deleted.agentId, 'memories');
  await bumped(deps, tenantId, deleted.agentId, { remove: [deleted.id] });
}
