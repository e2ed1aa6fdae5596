import type Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DomainError, lazy, type Logger, type Metrics } from '@agentplatform/service-kit';
import { checkAccess } from '../http/access-guard.js';
import { flatErrorBody, toDomainError } from '../http/error-body.js';
import { readBody } from '../http/json-body.js';
import { anyCaller, type AccessGuard, type Caller } from '../http/route.js';
import { canonical, type IdempotencyStore } from '../middleware/idempotency.js';
import type { BoundMcpTool } from './mcp.tools.js';

const MCP_PATH = '/mcp';

type ServerModule = typeof import('@modelcontextprotocol/sdk/server/mcp.js');
type TransportModule = typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js');
/**
 * The MCP SDK's server, loaded on the first MCP request: with its schemas it holds about 17 MB of
 * the gateway's memory, which a gateway nobody asks over MCP (and every idle one) does not need.
 */
const mcpSdk = lazy(() => ({
  Server: (require('@modelcontextprotocol/sdk/server/mcp.js') as ServerModule).McpServer,
  Transport: (require('@modelcontextprotocol/sdk/server/streamableHttp.js') as TransportModule)
    .StreamableHTTPServerTransport,
}));

interface McpRouteDeps {
  guard: AccessGuard;
  tools: BoundMcpTool[];
  /** Idempotency-Key for the tools whose REST route takes one (absent: keys are ignored). */
  idempotency?: IdempotencyStore['once'];
  logger: Logger;
  metrics?: Metrics;
}

const SERVER_INFO = { name: 'agent-platform', version: '1.0.0' };

const INSTRUCTIONS =
  "The Agent Platform: the tenant's agents (chat, memory) and workflows. Each tool needs the scope of " +
  'the REST route it stands for; a refusal, a missing resource or a bad argument is a tool error whose ' +
  'text is the platform error ({error, message, details?}).';

/**
 * What McpServer is told a tool's input is: any object, described by the REST route's JSON schema.
 * The SDK would otherwise validate arguments itself and word its own errors; the platform's
 * validation (the route's zod schema, through parseOrThrow) runs in the tool instead, so a bad
 * argument is refused with the same message, naming the same field, as over REST.
 */
function described(schema: z.ZodObject): z.ZodObject {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    target: 'draft-7',
  }) as Record<string, unknown>;
  return z.looseObject({}).meta(json);
}

function success(result: unknown, replayed = false): CallToolResult {
  const structured = (result ?? {}) as Record<string, unknown>;
  return {
    content: [{ type: 'text', text: JSON.stringify(structured) }],
    structuredContent: structured,
    ...(replayed ? { _meta: { idempotent_replayed: true } } : {}),
  };
}

function failure(error: DomainError): CallToolResult {
  const body = flatErrorBody(error);
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body, isError: true };
}

/**
 * A tool call with the request's Idempotency-Key, when its REST route takes one: as over REST, a
 * retry of the same call replays the first answer and the key with other arguments is a conflict.
 * Keys are shared with REST (a key is one request, whichever way it came).
 */
async function runOnce(
  tool: BoundMcpTool,
  caller: Caller,
  args: Record<string, unknown>,
  idempotencyKey: string,
  deps: McpRouteDeps,
): Promise<CallToolResult> {
  const call = tool.parse(args);
  if (!tool.idempotent || !idempotencyKey || !deps.idempotency) return success(await call.run(caller));
  const answer = await deps.idempotency(
    caller,
    idempotencyKey,
    `MCP ${tool.name}\n${canonical(call.input)}`,
    async () => ({
      status: 200,
      body: await call.run(caller),
    }),
  );
  return success(answer.body, answer.replayed);
}

/** A server for one request (stateless): its tools act as `caller`, who was authenticated for this request. */
function serverFor(caller: Caller, idempotencyKey: string, deps: McpRouteDeps): McpServer {
  const server = new (mcpSdk().Server)(SERVER_INFO, { instructions: INSTRUCTIONS });
  for (const tool of deps.tools) {
    server.registerTool(
      tool.name,
      { description: tool.description, inputSchema: described(tool.input) },
      async (args: Record<string, unknown>) => {
        try {
          // In the order of a REST request: the scope, then the arguments.
          checkAccess(caller, tool.access);
          return await runOnce(tool, caller, args, idempotencyKey, deps);
        } catch (error) {
          return failure(toDomainError(error, deps.logger, deps.metrics));
        }
      },
    );
  }
  return server;
}

async function authenticate(ctx: Context, guard: AccessGuard): Promise<Caller> {
  try {
    return await guard.authorize(ctx, anyCaller);
  } catch (error) {
    // RFC 6750 section 3; MCP clients read it to know a bearer token is wanted.
    if (error instanceof DomainError && error.code === 'unauthorized') {
      ctx.set('WWW-Authenticate', 'Bearer realm="agent-platform"');
    }
    throw error;
  }
}

/**
 * `POST /mcp`: the platform as an MCP server (Streamable HTTP, stateless, docs/design.md section 9).
 * Authentication and the tenant's rate limit are the REST routes' (the same guard); each tool
 * then checks the scope of its REST route. Without sessions there is no stream to GET and nothing
 * to DELETE: other methods answer 405.
 */
export function mountMcpRoutes(router: Router, deps: McpRouteDeps): void {
  router.post(MCP_PATH, async (ctx) => {
    const caller = await authenticate(ctx, deps.guard);
    await readBody(ctx);
    const body = (ctx.request as { body?: unknown }).body;
    if (Array.isArray(body)) {
      // A batch would run up to 100 tool calls for one request of the tenant's rate limit; MCP
      // dropped JSON-RPC batching in its 2025-06-18 revision, and no SDK client sends one.
      ctx.status = 400;
      ctx.body = {
        jsonrpc: '2.0',
        error: { code: -32600, message: 'Invalid Request: batches are not supported; send one message per request' },
        id: null,
      };
      return;
    }
    const server = serverFor(caller, ctx.get('idempotency-key'), deps);
    const transport = new (mcpSdk().Transport)({ sessionIdGenerator: undefined, enableJsonResponse: true });
    ctx.res.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    // The transport writes the response itself; koa-body already parsed the JSON body.
    ctx.respond = false;
    await transport.handleRequest(ctx.req, ctx.res, body);
  });
  router.all(MCP_PATH, (ctx) => {
    ctx.set('Allow', 'POST');
    throw new DomainError('method_not_allowed', 'The MCP endpoint is stateless: use POST');
  });
}
