import type { AgentMemory } from '../domain/memory.js';
import type { UseCaseDeps } from './deps.js';
import { addMemory } from './add-memory.js';
import { searchMemory } from './search-memory.js';

/** The memory tools' way in (AgentMemory): the API's own use cases, bound to one chat's agent. */
export function agentMemory(
  deps: UseCaseDeps,
  scope: { tenantId: string; agentId: string; plan?: string },
): AgentMemory {
  const { tenantId, agentId, plan } = scope;
  return {
    search: (query, topK) => searchMemory(deps, { tenantId, agentId, query, topK }),
    add: (item) => addMemory(deps, { tenantId, agentId, plan, ...item }),
  };
}
