import type { Logger, SecretBox } from '@agentplatform/service-kit';
import type { Dispatcher } from 'undici';
import type { WorkflowPort } from '../clients/workflow.client.js';
import type { Agent } from '../domain/agent.js';
import type { AgentMemory } from '../domain/memory.js';
import { headerContext, TOOL_LIMITS, type HttpGrant, type McpGrant } from '../domain/tools.js';
import { httpTool } from './http-tool.js';
import type { McpTurnPort } from './mcp-tools.js';
import { memoryAddTool, memorySearchTool } from './memory-tools.js';
import { unavailableTool, type Tool, type ToolScope } from './tool.js';
import { workflowTool } from './workflow-tool.js';

/** The header values of an http or mcp grant, opened for one turn. */
export function openHeaders(box: SecretBox, agentId: string, grant: HttpGrant | McpGrant): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, sealed] of Object.entries(grant.headers ?? {})) {
    out[name] = box.open(sealed, headerContext(agentId, grant, name));
  }
  return out;
}

/**
 * Header values that cannot be opened (a key rotated out of DATA_ENCRYPTION_KEY too early) make the
 * grant's calls fail as tool errors, not the chat.
 */
function openedOrNone(
  box: SecretBox,
  logger: Logger,
  agent: Agent,
  grant: HttpGrant | McpGrant,
): Record<string, string> | undefined {
  try {
    return openHeaders(box, agent.id, grant);
  } catch (error) {
    logger.error({ err: error, agent_id: agent.id, tool: grant.name }, 'tool header values cannot be opened');
    return undefined;
  }
}

function unopened(grant: HttpGrant | McpGrant): string {
  return `the stored header values of the tool grant "${grant.name}" cannot be decrypted (their data key is no longer in DATA_ENCRYPTION_KEY, or they were altered); set the grant's headers again`;
}

export function toolTimeoutMs(agent: Agent): number {
  return agent.config.tool_timeout_ms ?? TOOL_LIMITS.defaultTimeoutMs;
}

/** What an agent's tools act through in one chat turn; `memory` is bound to the turn's agent. */
export interface ToolDeps {
  workflows: WorkflowPort;
  box: SecretBox;
  dispatcher: Dispatcher;
  logger: Logger;
  memory: AgentMemory;
}

/**
 * The tools an agent's grants give one chat turn (docs/design.md section 9), all bound to the agent's
 * tenant. MCP servers are listed now (or from the brief cache) through the turn's connections.
 */
export async function agentTools(deps: ToolDeps, agent: Agent, scope: ToolScope, mcp: McpTurnPort): Promise<Tool[]> {
  const timeoutMs = toolTimeoutMs(agent);
  const groups = await Promise.all(
    (agent.config.tools ?? []).map(async (grant): Promise<Tool[]> => {
      switch (grant.type) {
        case 'memory_search':
          return [memorySearchTool(deps.memory)];
        case 'memory_add':
          return [memoryAddTool(deps.memory, agent)];
        case 'workflow':
          return [workflowTool(deps.workflows, scope, grant, timeoutMs)];
        case 'http': {
          const headers = openedOrNone(deps.box, deps.logger, agent, grant);
          const tool = httpTool(grant, headers ?? {}, deps.dispatcher, timeoutMs);
          return [headers ? tool : unavailableTool(tool.name, tool.description, unopened(grant))];
        }
        case 'mcp': {
          const headers = openedOrNone(deps.box, deps.logger, agent, grant);
          if (!headers)
            return [unavailableTool(grant.name, `The tools of the MCP server ${grant.name}`, unopened(grant))];
          const key = `${agent.tenantId}:${agent.id}:${agent.updatedAt.getTime()}:${grant.name}`;
          return mcp.tools(key, grant, headers, timeoutMs);
        }
        default:
          return [];
      }
    }),
  );
  // Names are unique per grant by validation; an MCP server's tool could still repeat one: first wins.
  const seen = new Set<string>();
  return groups.flat().filter((tool) => !seen.has(tool.name) && seen.add(tool.name));
}
