import type { Agent } from '../domain/agent.js';
import { missingScope, type CallerScopes } from '../domain/tool-rights.js';
import { grantName } from '../domain/tools.js';
import { ToolError, type Tool } from '../tools/tool.js';

/**
 * Tools act with their caller's rights (docs/design.md section 9): a tool whose grant needs a scope
 * the caller lacks stays offered (the model sees the agent as configured) but every call of it is
 * an error result for the model, and nothing runs.
 */
export function withCallerRights(tools: Tool[], agent: Agent, caller: CallerScopes): Tool[] {
  const refused = new Map<string, string>();
  for (const grant of agent.config.tools ?? []) {
    const scope = missingScope(caller, grant);
    if (scope) refused.set(grantName(grant), scope);
  }
  if (refused.size === 0) return tools;
  return tools.map((tool) => {
    const scope = refused.get(tool.name);
    if (!scope) return tool;
    return {
      ...tool,
      run: async () => {
        throw new ToolError(`refused: the key or user that sent this chat lacks the ${scope} scope this tool needs`);
      },
    };
  });
}
