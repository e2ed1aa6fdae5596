import { newId, ValidationError, type FieldIssue } from '@agentplatform/service-kit';
import type { Agent, MemoryType } from '../domain/agent.js';
import type { MemoryItem } from '../domain/memory.js';
import { checkContent, checkMemoryType } from '../domain/memory-rules.js';
import type { UseCaseDeps } from './deps.js';

export interface MemoryInput {
  agentId: string;
  memoryType?: string;
  content: string;
  metadata?: Record<string, unknown>;
  /** The tenant's plan: the memories quota per agent (docs/design.md section 5). */
  plan?: string;
}

/** A new item of the agent, without a vector (the embedding backlog gives it one). */
export function newItem(
  agent: { tenantId: string; id: string },
  input: { memoryType: MemoryType; content: string; metadata: Record<string, unknown> },
): MemoryItem {
  const now = new Date();
  return {
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
}

/**
 * Adds one memory item. The fields are checked here (content not blank and not too long, a known
 * type); the write checks the rest with the agent it reads: the agent exists (404), the type is
 * enabled for it (400), and a unit of the plan's memories quota is left (403). The item is
 * lexically searchable at once; its vector comes from the embedding backlog, off the request path.
 */
export async function addMemory(deps: UseCaseDeps, input: MemoryInput & { tenantId: string }): Promise<MemoryItem> {
  const issues: FieldIssue[] = [];
  if (!input.agentId) issues.push({ field: 'agent_id', message: 'is required' });
  const content = checkContent(input.content ?? '', issues);
  const memoryType = checkMemoryType(undefined, input.memoryType ?? 'semantic', issues);
  if (issues.length > 0) throw new ValidationError(issues);
  const item = newItem(
    { tenantId: input.tenantId, id: input.agentId },
    { memoryType, content, metadata: input.metadata ?? {} },
  );
  return deps.memoryWriter.add(item, input.plan);
}

/**
 * Stores a chat's item for an agent the caller has read: counted toward the memories quota, never
 * refused (a chat must not fail for it).
 */
export async function storeMemory(
  deps: UseCaseDeps,
  agent: Agent,
  input: { memoryType: MemoryType; content: string; metadata: Record<string, unknown> },
): Promise<MemoryItem> {
  return deps.memoryWriter.addForChat(newItem(agent, input), agent);
}
