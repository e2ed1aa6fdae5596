import type { MemoryItem } from '../domain/memory.js';
import type { UseCaseDeps } from './deps.js';

/**
 * Bumps the agent's memory version after a change to its items, and tells this replica's index:
 * every other replica's cached index sees the new version and reloads.
 */
export async function bumped(
  deps: Pick<UseCaseDeps, 'agents' | 'index'>,
  tenantId: string,
  agentId: string,
  change: { upsert?: MemoryItem[]; remove?: string[] },
): Promise<void> {
  const agent = await deps.agents.bumpMemoryVersion(tenantId, agentId);
  if (agent === undefined) deps.index.drop(tenantId, agentId);
  else deps.index.apply(tenantId, agentId, agent.memoryVersion, change);
}
