import { GroupCommit } from '@agentplatform/service-kit';
import type { Agent } from '../domain/agent.js';

interface AgentFinder {
  find(tenantId: string, agentId: string): Promise<Agent | undefined>;
}

/**
 * A chat turn's agent read. Turns of one agent that arrive while a read of it is in flight share
 * the next read, which starts after they all arrived: each turn still sees the agent as of its own
 * call (a paused agent refuses it, its retrieval gets a memory version read after the call), for
 * one round trip per group instead of per turn. The key names the tenant (whose ids never hold a
 * newline), so one tenant's turns never share another's read.
 */
export class GroupedAgentReads implements AgentFinder {
  private readonly reads: GroupCommit<{ tenantId: string; agentId: string }, Agent | undefined>;

  constructor(agents: AgentFinder) {
    this.reads = new GroupCommit(async (_key, turns) => {
      const agent = await agents.find(turns[0]!.tenantId, turns[0]!.agentId);
      return turns.map(() => agent);
    });
  }

  find(tenantId: string, agentId: string): Promise<Agent | undefined> {
    return this.reads.submit(`${tenantId}\n${agentId}`, { tenantId, agentId });
  }
}
