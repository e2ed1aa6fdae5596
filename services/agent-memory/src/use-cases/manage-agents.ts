import { createEvent } from '@agentplatform/events/catalogue';
import { newId, NotFoundError, paging } from '@agentplatform/service-kit';
import {
  DEFAULT_MEMORY_TYPES,
  mergeConfig,
  validateAgentInput,
  type Agent,
  type AgentConfig,
  type AgentInput,
} from '../domain/agent.js';
import { assertMayGrant, type CallerScopes } from '../domain/tool-rights.js';
import type { ToolGrant } from '../domain/tools.js';
import type { AgentChanges } from '../persistence/agent.repository.js';
import type { UseCaseDeps } from './deps.js';
import { prepareTools } from './prepare-tools.js';

export interface CreateAgentInput extends AgentInput {
  tenantId: string;
  /** The tenant's plan: it sets the agent quota. */
  plan?: string;
  /** Who asks: its tool grants need its scopes (docs/design.md section 9); undefined: trusted. */
  caller?: CallerScopes;
}

export interface UpdateAgentInput extends AgentInput {
  tenantId: string;
  agentId: string;
  /** As CreateAgentInput.caller, for the grants of a given `config.tools`. */
  caller?: CallerScopes;
}

export async function createAgent(deps: UseCaseDeps, input: CreateAgentInput): Promise<Agent> {
  const { tenantId, plan, caller, ...fields } = input;
  const valid = validateAgentInput(fields, 'create');
  const id = newId('agt');
  if (valid.config?.tools) {
    assertMayGrant(caller, valid.config.tools as ToolGrant[]);
    valid.config.tools = await prepareTools(deps, tenantId, id, valid.config.tools as ToolGrant[]);
  }
  const release = await deps.quotas.acquire(tenantId, 'agents', plan, () => deps.agents.count(tenantId));
  const now = new Date();
  const agent: Agent = {
    id,
    tenantId,
    name: valid.name!,
    type: valid.type!,
    status: valid.status ?? 'active',
    description: valid.description ?? '',
    memoryTypes: valid.memoryTypes ?? DEFAULT_MEMORY_TYPES,
    config: (valid.config ?? {}) as AgentConfig,
    createdAt: now,
    updatedAt: now,
    memoryVersion: 0,
  };
  try {
    await deps.memories.openAgent(agent.id);
    return await deps.outbox.run(async (session) => {
      await deps.agents.insert(agent, session);
      const event = createEvent('agent.created', tenantId, {
        agent_id: agent.id,
        name: agent.name,
        type: agent.type,
        status: agent.status,
      });
      return { result: agent, events: [event] };
    });
  } catch (error) {
    await release();
    throw error;
  }
}

export async function getAgent(
  deps: Pick<UseCaseDeps, 'agents'>,
  input: { tenantId: string; agentId: string },
): Promise<Agent> {
  const agent = await deps.agents.find(input.tenantId, input.agentId);
  if (!agent) throw new NotFoundError('Agent');
  return agent;
}

export async function listAgents(
  deps: Pick<UseCaseDeps, 'agents'>,
  input: { tenantId: string; page: number; perPage: number; type?: string; status?: string },
): Promise<{ agents: Agent[]; total: number; page: number; perPage: number }> {
  const { page, perPage, skip } = paging(input.page, input.perPage);
  const filter = { type: input.type, status: input.status };
  const { agents, total } = await deps.agents.list(input.tenantId, filter, skip, perPage);
  return { agents, total, page, perPage };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** PATCH: only given fields change; `agent.updated` names the fields that really changed. */
export async function updateAgent(deps: UseCaseDeps, input: UpdateAgentInput): Promise<Agent> {
  const { tenantId, agentId, caller, ...fields } = input;
  const valid = validateAgentInput(fields, 'update');
  if (valid.config?.tools) assertMayGrant(caller, valid.config.tools as ToolGrant[]);
  const current = await getAgent(deps, { tenantId, agentId });
  if (valid.config?.tools) {
    valid.config.tools = await prepareTools(
      deps,
      tenantId,
      agentId,
      valid.config.tools as ToolGrant[],
      current.config.tools,
    );
  }
  const changes: AgentChanges = {};
  const changed: string[] = [];
  const consider = <K extends keyof AgentChanges>(
    key: K,
    field: string,
    next: AgentChanges[K] | undefined,
    now: unknown,
  ) => {
    if (next === undefined || same(next, now)) return;
    changes[key] = next;
    changed.push(field);
  };
  consider('name', 'name', valid.name, current.name);
  consider('type', 'type', valid.type, current.type);
  consider('status', 'status', valid.status, current.status);
  consider('description', 'description', valid.description, current.description);
  consider('memoryTypes', 'memory_types', valid.memoryTypes, current.memoryTypes);
  if (valid.config !== undefined)
    consider('config', 'config', mergeConfig(current.config, valid.config), current.config);
  if (changed.length === 0) return current;
  return deps.outbox.run(async (session) => {
    const updated = await deps.agents.update(tenantId, agentId, changes, new Date(), session);
    if (!updated) throw new NotFoundError('Agent');
    const event = createEvent('agent.updated', tenantId, { agent_id: agentId, changed, status: updated.status });
    return { result: updated, events: [event] };
  });
}

/** Deletes the agent, then its memories, sessions and messages. */
export async function deleteAgent(
  deps: UseCaseDeps,
  input: { tenantId: string; agentId: string },
): Promise<{ memories: number; sessions: number; messages: number }> {
  const { tenantId, agentId } = input;
  if (!(await deps.agents.delete(tenantId, agentId))) throw new NotFoundError('Agent');
  await deps.quotas.release(tenantId, 'agents');
  const [memories, chats] = await Promise.all([
    deps.memories.deleteAgent(tenantId, agentId),
    deps.chats.deleteAgent(tenantId, agentId),
  ]);
  deps.index.drop(tenantId, agentId);
  await deps.quotas.forget(agentId, 'memories');
  return { memories, sessions: chats.sessions, messages: chats.messages };
}
