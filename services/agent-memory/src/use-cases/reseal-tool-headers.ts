import type { Logger, SecretBox } from '@agentplatform/service-kit';
import { headerContext, unboundHeaderContext, type HttpGrant, type McpGrant, type ToolGrant } from '../domain/tools.js';
import type { AgentRepository, StoredTools } from '../persistence/agent.repository.js';

export interface ResealDeps {
  agents: Pick<AgentRepository, 'withToolKeysOtherThan' | 'replaceSealedTools'>;
  box: SecretBox;
  logger: Logger;
}

/** The agent's grants with every header value sealed again under the current key and context. */
function resealed(box: SecretBox, agent: StoredTools): ToolGrant[] {
  return agent.tools.map((grant) => {
    if ((grant.type !== 'http' && grant.type !== 'mcp') || !grant.headers) return grant;
    const headers: Record<string, string> = {};
    for (const [name, sealed] of Object.entries(grant.headers)) {
      const context = (agent.unbound ? unboundHeaderContext : headerContext)(agent.id, grant, name);
      try {
        headers[name] = box.seal(box.open(sealed, context), headerContext(agent.id, grant, name));
      } catch (error) {
        throw new Error(`agent ${agent.id}, tool grant "${grant.name}", header ${name}: ${(error as Error).message}`);
      }
    }
    return { ...grant, headers } as HttpGrant | McpGrant;
  });
}

/**
 * Seals with the current data key, at start, every tool header value still under an older key of
 * DATA_ENCRYPTION_KEY (docs/security.md, "Rotating the key"), and binds the values of agents stored
 * before the origin was part of the seal to their grant's origin. An agent whose values cannot be
 * opened (their key already removed) is logged by agent, grant and header and left as it is: its
 * chats get a tool error naming the grant, and every other agent's tools keep working. Answers
 * how many agents this call re-sealed.
 */
export async function resealToolHeaders(deps: ResealDeps): Promise<number> {
  let count = 0;
  for (const agent of await deps.agents.withToolKeysOtherThan(deps.box.currentKeyId)) {
    let tools: ToolGrant[];
    try {
      tools = resealed(deps.box, agent);
    } catch (error) {
      deps.logger.error(
        { agent_id: agent.id, reason: (error as Error).message },
        'tool header values cannot be re-sealed; set the grant headers again',
      );
      continue;
    }
    if (await deps.agents.replaceSealedTools(agent, tools)) count++;
  }
  return count;
}
