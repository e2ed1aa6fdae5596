import { LRUCache } from 'lru-cache';
import type { WorkflowClient } from './workflow-client.js';

/** How long a hook the workflow service confirmed is taken as live without asking again. */
const KNOWN_HOOK_TTL_MS = 5_000;
const KNOWN_HOOKS_MAX = 10_000;

type Hook = { hookId: string; path: string };

/** A live hook: the workflow it starts, and that workflow's tenant. */
export interface ResolvedHook {
  workflowId: string;
  tenantId: string;
}

/**
 * Which hooks exist, asked of the workflow service (ResolveHook) before a hook's body is read and
 * before it is counted against its rate limit, so a request to an unknown id costs neither. A
 * live hook is remembered for 5 seconds: a busy hook costs one call per 5 s and replica, and
 * concurrent requests for one id share a call (lru-cache's `fetch`). Unknown ids are not
 * remembered (a failed fetch is not kept; each random id is new); the per-address budget bounds
 * how many an address may try. A hook paused or rotated is refused by TriggerHook at once; for
 * those 5 seconds its old URL still has its body read and its rate counted, no longer.
 */
export function hookDirectory(workflow: WorkflowClient, deadlineMs: number) {
  const known = new LRUCache<string, ResolvedHook, Hook>({
    // Entries counted by maxSize, not max: `max` allocates every slot up front (docs/performance.md).
    maxSize: KNOWN_HOOKS_MAX,
    sizeCalculation: () => 1,
    ttl: KNOWN_HOOK_TTL_MS,
    fetchMethod: async (_key, _stale, { context }) => {
      const { workflowId, tenantId } = await workflow.resolveHook(context, { deadline: deadlineMs });
      return { workflowId, tenantId };
    },
  });
  /** The workflow the hook starts and its tenant; not_found unless it is an active workflow's hook at this path. */
  return (hookId: string, path: string): Promise<ResolvedHook> =>
    known.forceFetch(`${hookId}/${path}`, { context: { hookId, path } });
}
