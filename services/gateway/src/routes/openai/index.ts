import Router from '@koa/router';
import type { Context } from 'koa';
import type { agentMemoryV1 } from '@agentplatform/contracts';
import { defineRoute, mountRoutes, requireScope, type Caller, type Route, type RouteGuards } from '../../http/route.js';
import { agentJson, chatRequest, listAgents } from '../agents/index.js';
import { CHAT_DEADLINE_MS, chatJson, hangUpSignal, relayChatStream } from '../agents/chat-stream.js';
import type { RouteDeps } from '../deps.js';
import { OPENAI_PREFIX } from './openai-errors.js';
import { finishReason, openAiStreamFormat } from './openai-stream.js';
import {
  chatCompletionBody,
  chatCompletionResponse,
  modelListResponse,
  modelParams,
  modelResponse,
  type ChatCompletionBody,
} from './openai.schemas.js';

const unixSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

function modelJson(agent: ReturnType<typeof agentJson>, caller: Caller) {
  return {
    id: agent.id,
    object: 'model' as const,
    created: unixSeconds(agent.created_at),
    owned_by: caller.tenantId,
    name: agent.name,
  };
}

type Message = ChatCompletionBody['messages'][number];

const text = (m: Message) =>
  typeof m.content === 'string'
    ? m.content
    : (m.content ?? []).map((p) => (p.type === 'text' ? String(p.text) : '')).join('');

/**
 * The turn a completion asks for: the last user message is the turn; the system (and developer)
 * messages follow the agent's own system prompt; with a session (X-Session-Id, else `user`) its
 * stored turns are the context, else the request's earlier user and assistant messages are, and
 * the turn stores no messages (docs/design.md section 11: the caller keeps the conversation).
 */
export function completionRequest(caller: Caller, body: ChatCompletionBody, sessionHeader: string | undefined) {
  const last = body.messages.map((m) => m.role).lastIndexOf('user');
  const sessionId = sessionHeader || body.user;
  const context = sessionId
    ? []
    : body.messages
        .slice(0, last)
        .filter((m) => m.role === 'user' || m.role === 'assistant')
        .map((m) => ({ role: m.role, content: text(m) }));
  return {
    ...chatRequest(caller, body.model, { message: text(body.messages[last]), session_id: sessionId }),
    context,
    instructions: body.messages.filter((m) => m.role === 'system' || m.role === 'developer').map(text),
    temperature: body.temperature ?? undefined,
    maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
    noStore: !sessionId,
  };
}

function sessionHeader(ctx: Context): string | undefined {
  return ctx.get('x-session-id') || undefined;
}

/** `chat.completion`: the platform's chat answer in OpenAI's shape, with its tool steps beside it. */
export function completionJson(reply: agentMemoryV1.ChatResponse, model: string) {
  const chat = chatJson(reply);
  return {
    id: chat.id,
    object: 'chat.completion' as const,
    created: unixSeconds(chat.created_at),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant' as const, content: chat.content, refusal: null },
        finish_reason: finishReason(chat.stop_reason),
        logprobs: null,
      },
    ],
    usage: chat.usage,
    agent_steps: chat.steps,
  };
}

/** docs/design.md section 11: the tenant's agents as OpenAI models, and chat turns as completions. */
export function openAiRoutes({ backends }: RouteDeps): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/models',
      summary: 'OpenAI API: the tenant’s active agents as models',
      tag: 'openai',
      access: requireScope('agents:read'),
      response: modelListResponse,
      handler: async ({ caller }) => {
        const data = [];
        for (let page = 1; ; page++) {
          const out = await listAgents(backends, caller, { page, per_page: 100, status: 'active' });
          data.push(...out.agents.map((a) => modelJson(a, caller)));
          if (out.agents.length < 100) break;
        }
        return { object: 'list' as const, data };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/models/:model',
      summary: 'OpenAI API: one agent as a model',
      tag: 'openai',
      access: requireScope('agents:read'),
      params: modelParams,
      response: modelResponse,
      handler: async ({ params, caller }) =>
        modelJson(
          agentJson(await backends.agentMemory.getAgent({ tenantId: caller.tenantId, agentId: params.model })),
          caller,
        ),
    }),
    defineRoute({
      method: 'post',
      path: '/chat/completions',
      errors: ['insufficient_credits', 'conflict'],
      summary:
        'OpenAI API: a chat turn of the agent named by `model` (credits, memory, tools and events as POST /agents/{id}/chat); ' +
        'server-sent chunks with `stream: true`',
      tag: 'openai',
      access: requireScope('agents:write'),
      body: chatCompletionBody,
      example: { model: 'agt_...', messages: [{ role: 'user', content: 'How do I get a refund?' }] },
      response: chatCompletionResponse,
      handler: async ({ body, caller, ctx }) => {
        const request = completionRequest(caller, body, sessionHeader(ctx));
        if (body.stream) {
          const format = openAiStreamFormat(body.model, body.stream_options?.include_usage === true);
          await relayChatStream(ctx, backends, request, format);
          return undefined;
        }
        const reply = await backends.agentMemory.chat(request, {
          deadline: CHAT_DEADLINE_MS,
          signal: hangUpSignal(ctx),
        });
        // A sessionless turn is stored nowhere: there is no session to name.
        if (!request.noStore) ctx.set('X-Session-Id', reply.sessionId);
        return completionJson(reply, body.model);
      },
    }),
  ];
}

/** Serves OpenAI's routes under `/openai/v1` (their errors are shaped by `openAiErrorShape`). */
export function openAiRouter(routes: ReadonlyArray<Route>, guards: RouteGuards): Router {
  const router = new Router({ prefix: OPENAI_PREFIX });
  mountRoutes(router, routes, guards);
  return router;
}
