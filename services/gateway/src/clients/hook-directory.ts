import { LRUCache } from 'lru-cache';
import type { WorkflowClient } from './workflow-client.js';

/** How long a hook the workflow service confirmed is taken as live without asking again. */
const KNOWN_HOOK_TTL_MS = 60_000;
const KNOWN_HOOKS_MAX = 10_000;

type Hook = { hookId: string; path: string };

/**
 * Which hooks exist, asked of the workflow service (ResolveHook) before a hook is counted against
 * its rate limit, so a request to an unknown id writes no shared counter. A live hook is
 * remembered for a minute: one call a minute per hook and replica, and concurrent requests for
 * one id share a call (lru-cache's `fetch`). Unknown ids are not remembered (a failed fetch is not
 * kept; each random id is new); the per-address budget bounds how many an address may try. A hook
 * paused or rotated within the minute is still refused by TriggerHook itself.
 */
export function hookDirectory(workflow: WorkflowClient, deadlineMs: number) {
  const known = new LRUCache<string, string, Hook>({
    // Entries counted by maxSize, not max: `max` allocates every slot up front (docs/performance.md).
    maxSize: KNOWN_HOOKS_MAX,
    sizeCalculation: () => 1,
    ttl: KNOWN_HOOK_TTL_MS,
    fetchMethod: async (_key, _stale, { context }) =>
      (await workflow.resolveHook(context, { deadline: deadlineMs })).workflowId,
  });
  /** The workflow the hook starts; not_found unless it is an active workflow's hook at this path. */
  return (hookId: string, path: string): Promise<string> =>
    known.forceFetch(`${hookId}/${path}`, { context: { hookId, path } });
}
