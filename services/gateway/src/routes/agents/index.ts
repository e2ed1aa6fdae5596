import type { z } from 'zod';
import type { agentMemoryV1 } from '@agentplatform/contracts';
import type { Backends } from '../../clients/backends.js';
import { defineRoute, requireScope, type Caller, type Route } from '../../http/route.js';
import { jsonFields, tenantRequest } from '../../http/json-fields.js';
import { pageJson } from '../../http/paging.js';
import type { RouteDeps } from '../deps.js';
import {
  agentListResponse,
  agentParams,
  agentResponse,
  chatBody,
  chatResponse,
  createAgentBody,
  deleteResponse,
  listAgentsQuery,
  messageListResponse,
  pageQuery,
  sessionListResponse,
  sessionParams,
  updateAgentBody,
} from './agents.schemas.js';
import {
  CHAT_DEADLINE_MS,
  chatJson,
  hangUpSignal,
  relayChatStream,
  stepJson,
  usageJson,
  wantsEventStream,
} from './chat-stream.js';

export const agentJson = (agent: agentMemoryV1.Agent) => ({
  ...jsonFields(agent, ['id', 'name', 'type', 'status', 'description', 'memory_types', 'created_at', 'updated_at']),
  config: agent.config ?? {},
});

type AgentMemory = Backends['agentMemory'];

/** `GET /agents`, and the MCP tool `list_agents` (grouped with concurrent listings: Backends.listAgents). */
export async function listAgents(
  backends: Pick<Backends, 'listAgents'>,
  caller: Caller,
  query: z.infer<typeof listAgentsQuery>,
) {
  const out = await backends.listAgents(tenantRequest(caller, query));
  return { agents: out.agents.map(agentJson), ...pageJson(out) };
}

/**
 * The rights of the key or user a request comes from, for agent-memory to check tool grants and
 * tool calls against (docs/design.md section 9).
 */
function callerRights(caller: Caller): agentMemoryV1.CallerRights {
  return { scopes: [...caller.scopes] };
}

export function chatRequest(caller: Caller, agentId: string, body: z.infer<typeof chatBody>) {
  return {
    tenantId: caller.tenantId,
    agentId,
    message: body.message,
    sessionId: body.session_id,
    plan: caller.plan ?? '',
    caller: callerRights(caller),
  };
}

/**
 * `POST /agents/:agent_id/chat` answered as JSON, and the MCP tool `chat_with_agent`. `signal`
 * ends the turn when nobody waits for its answer any more (chat has no Idempotency-Key replay).
 */
export async function chatOnce(
  agents: AgentMemory,
  caller: Caller,
  agentId: string,
  body: z.infer<typeof chatBody>,
  signal?: AbortSignal,
) {
  return chatJson(await agents.chat(chatRequest(caller, agentId, body), { deadline: CHAT_DEADLINE_MS, signal }));
}

/** The API reference (Agents) and docs/design.md section 6: CRUD, chat (JSON or SSE), sessions and messages. */
export function agentRoutes({ backends }: RouteDeps): Route[] {
  const agents = backends.agentMemory;
  const read = requireScope('agents:read');
  const write = requireScope('agents:write');
  return [
    defineRoute({
      method: 'get',
      path: '/agents',
      summary: 'List the tenant’s agents, newest first',
      tag: 'agents',
      access: read,
      query: listAgentsQuery,
      response: agentListResponse,
      handler: ({ query, caller }) => listAgents(backends, caller, query),
    }),
    defineRoute({
      method: 'post',
      path: '/agents',
      summary:
        'Create an agent; fires agent.created. Granting a `workflow` tool needs workflows:execute, `memory_add` memory:write (403)',
      tag: 'agents',
      access: write,
      idempotent: true,
      body: createAgentBody,
      example: {
        name: 'Support bot',
        type: 'support',
        description: 'Answers billing questions',
        memory_types: ['semantic', 'episodic'],
        config: {
          model: 'local',
          temperature: 0.3,
          max_tokens: 512,
          system_prompt: 'You are a concise support agent.',
          tools: [
            { type: 'memory_search' },
            {
              type: 'http',
              name: 'order_status',
              description: 'Looks up the status of an order by its id',
              url: 'https://api.example.com/orders/{{args.order_id}}',
              method: 'GET',
              headers: { 'X-Api-Key': 'sk_live_example' },
              input_schema: {
                type: 'object',
                properties: { order_id: { type: 'string' } },
                required: ['order_id'],
              },
            },
          ],
          max_steps: 4,
        },
      },
      status: 201,
      response: agentResponse,
      handler: async ({ body, caller }) =>
        agentJson(
          await agents.createAgent({
            ...tenantRequest(caller, body),
            memoryTypes: body.memory_types ? { values: body.memory_types } : undefined,
            plan: caller.plan ?? '',
            caller: callerRights(caller),
          }),
        ),
    }),
    defineRoute({
      method: 'get',
      path: '/agents/:agent_id',
      summary: 'Get an agent',
      tag: 'agents',
      access: read,
      params: agentParams,
      response: agentResponse,
      handler: async ({ params, caller }) => agentJson(await agents.getAgent(tenantRequest(caller, params))),
    }),
    defineRoute({
      method: 'patch',
      path: '/agents/:agent_id',
      summary:
        'Update an agent (only the fields given; config keys merge, null removes one); fires agent.updated. Tool grants need scopes as on create',
      tag: 'agents',
      access: write,
      params: agentParams,
      body: updateAgentBody,
      example: { description: 'Answers billing and refund questions', config: { temperature: 0.2 } },
      response: agentResponse,
      handler: async ({ params, body, caller }) =>
        agentJson(
          await agents.updateAgent({
            ...tenantRequest(caller, { ...params, ...body }),
            memoryTypes: body.memory_types ? { values: body.memory_types } : undefined,
            caller: callerRights(caller),
          }),
        ),
    }),
    defineRoute({
      method: 'delete',
      path: '/agents/:agent_id',
      summary: 'Delete an agent with its memory items, sessions and messages',
      tag: 'agents',
      access: write,
      params: agentParams,
      response: deleteResponse,
      handler: async ({ params, caller }) => {
        const out = await agents.deleteAgent(tenantRequest(caller, params));
        return {
          success: true,
          message: `Agent deleted with ${out.deletedMemories} memory items and ${out.deletedSessions} sessions`,
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/agents/:agent_id/chat',
      errors: ['insufficient_credits', 'conflict'],
      summary:
        'Chat with an agent (credits: ceil(total_tokens/1000), at least 1); JSON, or server-sent events with Accept: text/event-stream',
      tag: 'agents',
      access: write,
      params: agentParams,
      body: chatBody,
      example: { message: 'How do I get a refund for a double charge?', session_id: 'support-ticket-4711' },
      response: chatResponse,
      handler: async ({ params, body, caller, ctx }) => {
        if (wantsEventStream(ctx)) {
          await relayChatStream(ctx, backends, chatRequest(caller, params.agent_id, body));
          return undefined;
        }
        return chatOnce(agents, caller, params.agent_id, body, hangUpSignal(ctx));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/agents/:agent_id/sessions',
      summary: 'The agent’s chat sessions, most recently active first',
      tag: 'agents',
      access: read,
      params: agentParams,
      query: pageQuery,
      response: sessionListResponse,
      handler: async ({ params, query, caller }) => {
        const out = await agents.listSessions(tenantRequest(caller, { ...params, ...query }));
        return {
          sessions: out.sessions.map((session) =>
            jsonFields(session, ['id', 'agent_id', 'title', 'message_count', 'created_at', 'last_message_at']),
          ),
          ...pageJson(out),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/agents/:agent_id/sessions/:session_id/messages',
      summary: 'A session’s messages in conversation order (oldest first)',
      tag: 'agents',
      access: read,
      params: sessionParams,
      query: pageQuery,
      response: messageListResponse,
      handler: async ({ params, query, caller }) => {
        const out = await agents.listMessages(tenantRequest(caller, { ...params, ...query }));
        return {
          messages: out.messages.map((m) => ({
            id: m.id,
            session_id: m.sessionId,
            role: m.role,
            content: m.content,
            ...(m.model ? { model: m.model } : {}),
            ...(m.usage ? { usage: usageJson(m.usage) } : {}),
            ...(m.step ? { step: stepJson(m.step) } : {}),
            created_at: m.createdAt,
          })),
          ...pageJson(out),
        };
      },
    }),
  ];
}
