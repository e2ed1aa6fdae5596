import { ForbiddenError, type Scope } from '@agentplatform/service-kit';
import { grantName, type ToolGrant, type ToolType } from './tools.js';

/**
 * The scopes of the key or user a request comes from, as the gateway authenticated them; undefined
 * for a trusted internal caller (another service acting on a request checked when it started,
 * e.g. a workflow's agent node), which is not checked.
 */
export type CallerScopes = readonly string[] | undefined;

/**
 * Tools act with their caller's rights, never more (docs/design.md section 9): a tool that does
 * what an API scope guards needs that scope, both to be granted and to be called. The other tools
 * need none beyond the chat's own `agents:write`: `memory_search` reads what a turn's retrieval
 * already puts in the prompt, and `http` and `mcp` tools reach only what their grant names.
 */
const TOOL_SCOPES: Partial<Record<ToolType, Scope>> = {
  workflow: 'workflows:execute',
  memory_add: 'memory:write',
};

/** The scope a grant's tool needs that the caller lacks, if any. */
export function missingScope(caller: CallerScopes, grant: ToolGrant): Scope | undefined {
  const needed = TOOL_SCOPES[grant.type];
  if (!needed || caller === undefined || caller.includes(needed)) return undefined;
  return needed;
}

/**
 * A create or update that gives an agent tools the caller could not use itself is refused, naming
 * the first such tool. A list that keeps an earlier grant counts as granting it again.
 */
export function assertMayGrant(caller: CallerScopes, grants: readonly ToolGrant[]): void {
  for (const grant of grants) {
    const scope = missingScope(caller, grant);
    if (scope) {
      throw new ForbiddenError(`Granting the ${grant.type} tool "${grantName(grant)}" needs the ${scope} scope`);
    }
  }
}
