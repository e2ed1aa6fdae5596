import type { Backends } from './backends.js';
import { TtlCache } from './ttl-cache.js';

/** How long a hook the workflow service confirmed is taken as live without asking again. */
const KNOWN_HOOK_TTL_MS = 60_000;
const KNOWN_HOOKS_MAX = 10_000;

/**
 * Which hooks exist, asked of the workflow service (ResolveHook) before a hook is counted against
 * its rate limit, so a request to an unknown id writes no shared counter. A live hook is
 * remembered for a minute: one call a minute per hook and replica, and concurrent requests for
 * one id share a call. Unknown ids are not remembered (each random id is new); the per-address
 * budget bounds how many an address may try. A hook paused or rotated within the minute is still
 * refused by TriggerHook itself.
 */
export class HookDirectory {
  private readonly known = new TtlCache<string>(KNOWN_HOOK_TTL_MS, KNOWN_HOOKS_MAX);

  constructor(
    private readonly workflow: Backends['workflow'],
    private readonly deadlineMs: number,
  ) {}

  /** The workflow the hook starts; not_found unless it is an active workflow's hook at this path. */
  resolve(hookId: string, path: string): Promise<string> {
    return this.known.get(`${hookId}/${path}`, async () => {
      const answer = await this.workflow.resolveHook({ hookId, path }, { deadline: this.deadlineMs });
      return answer.workflowId;
    });
  }
}
