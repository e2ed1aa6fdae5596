import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '@agentplatform/service-kit';
import type { Route } from '../http/route.js';
import { mcpPathItem } from '../mcp/mcp.openapi.js';
import type { BoundMcpTool } from '../mcp/mcp.tools.js';
import { scheduleNodeConfig } from '../routes/workflows/workflows.schemas.js';

type JsonSchema = Record<string, unknown>;

function schemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
  }) as JsonSchema;
  return rest;
}

const ID_PREFIXES: Record<string, string> = {
  agent_id: 'agt',
  workflow_id: 'wf',
  execution_id: 'exe',
  webhook_id: 'wh',
  delivery_id: 'dlv',
  memory_id: 'mem',
  key_id: 'key',
  session_id: 'ses',
};

/** Path parameters whose example is not a prefixed id. */
const EXAMPLES: Record<string, string> = { hook_id: `hk_EXAMPLE${'0'.repeat(25)}`, path: 'orders' };

/** A well-formed id for a path parameter's example (the docs page's "Try it out" needs one). */
function exampleId(name: string): string {
  if (Object.hasOwn(EXAMPLES, name)) return EXAMPLES[name]!;
  return `${ID_PREFIXES[name] ?? name.replace(/_id$/, '')}_01JEXAMPLE0000000000000000`;
}

/** A path parameter (`:agent_id`) or wildcard (`*path`) of a @koa/router path. */
const PATH_PARAMETER = /[:*]([A-Za-z0-9_]+)/g;

/** `/agents/:agent_id` -> `/agents/{agent_id}`, `/hooks/:hook_id/*path` -> `/hooks/{hook_id}/{path}` */
function openApiPath(path: string): string {
  return path.replace(PATH_PARAMETER, '{$1}');
}

function parameters(schema: z.ZodType | undefined, location: 'path' | 'query', path: string): JsonSchema[] {
  const names = location === 'path' ? [...path.matchAll(PATH_PARAMETER)].map((m) => m[1]) : [];
  const json = schema ? schemaOf(schema, 'input') : {};
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  const all = new Set([...names, ...Object.keys(properties)]);
  return [...all].map((name) => ({
    name,
    in: location,
    required: location === 'path' || required.has(name),
    schema: properties[name] ?? { type: 'string' },
    ...(location === 'path' ? { example: exampleId(name) } : {}),
  }));
}

/** What every route may answer. */
const ERROR_STATUSES: Record<string, string> = {
  '400': 'Invalid request (validation_error)',
  '401': 'Missing, invalid or expired token or key (unauthorized)',
  '403': 'Insufficient permissions or a plan quota reached (forbidden, quota_exceeded)',
  '404': 'Not found (not_found)',
  '429':
    'Rate limit exceeded (rate_limit_exceeded), also for repeated requests without valid credentials from one address; Retry-After header',
  '503':
    'A backend is unavailable or did not answer in time (service_unavailable); retry after retry_after seconds (Retry-After header)',
};

/** What some routes answer: those with a body, with Idempotency-Key, or that name the code. */
const ROUTE_ERRORS: Partial<Record<ErrorCode, string>> = {
  unauthorized: 'Wrong credentials, or an expired, used or revoked refresh token (unauthorized)',
  insufficient_credits: 'Not enough credits (insufficient_credits)',
  conflict: "The resource's state forbids this, or it already exists (conflict)",
};

/** What a 429 or 503 carries besides `retry_after` in its body. */
const retryAfterHeader = {
  headers: {
    'Retry-After': { schema: { type: 'integer', minimum: 1 }, description: 'Seconds to wait before retrying' },
  },
};

function operation(route: Route): JsonSchema {
  const status = String(route.status ?? 200);
  const responses: Record<string, unknown> = {
    [status]: {
      description: status === '202' ? 'Accepted' : 'Success',
      ...(route.response ? { content: { 'application/json': { schema: schemaOf(route.response, 'output') } } } : {}),
    },
  };
  if (route.alternateStatus) {
    responses[String(route.alternateStatus)] = {
      ...(responses[status] as object),
      description: route.alternateStatus === 202 ? 'Accepted: still running' : 'Success: finished',
    };
  }
  const errorRef = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  for (const [code, description] of Object.entries(ERROR_STATUSES)) {
    if (route.access.kind === 'none' && (code === '401' || code === '403')) continue;
    responses[code] = { description, ...errorRef, ...(code === '429' || code === '503' ? retryAfterHeader : {}) };
  }
  if (route.validationStatus === 422) {
    responses['422'] = { description: 'Invalid fields (validation_error)', ...errorRef };
    if (route.body) responses['400'] = { description: 'Malformed JSON body (validation_error)', ...errorRef };
    else delete responses['400'];
  }
  if (route.body) {
    responses['413'] = { description: 'Body over 1 MiB (payload_too_large)', ...errorRef };
    responses['415'] = { description: 'Unsupported Content-Type (unsupported_media_type)', ...errorRef };
  }
  if (route.idempotent) {
    responses['409'] = {
      description: 'Idempotency-Key reused with another body, or its first request still running (conflict)',
      ...errorRef,
    };
  }
  for (const code of route.errors ?? []) {
    const http = String(ERROR_CODES[code].http);
    const description = ROUTE_ERRORS[code] ?? code;
    const known = responses[http] as { description: string } | undefined;
    responses[http] = { description: known ? `${known.description}; ${description}` : description, ...errorRef };
  }
  const access = route.access;
  const op: JsonSchema = {
    operationId: `${route.method}${openApiPath(route.path)
      .replace(/[{}]/g, '')
      .replace(/[/:_-]+(\w)/g, (_m, c: string) => c.toUpperCase())}`,
    summary: route.summary,
    tags: [route.tag],
    parameters: [
      ...parameters(route.params, 'path', route.path),
      ...parameters(route.query, 'query', route.path),
      ...(access.kind === 'none' || access.kind === 'operator'
        ? []
        : [
            {
              name: 'tenant_id',
              in: 'query',
              required: false,
              schema: { type: 'string' },
              description: "The tenant to act on (default: the caller's tenant)",
            },
          ]),
      ...(route.idempotent
        ? [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } }]
        : []),
    ].filter((p, i, all) => all.findIndex((q) => q.name === p.name && q.in === p.in) === i),
    responses,
    security:
      access.kind === 'none' ? [] : access.kind === 'operator' ? [{ operator: [] }] : [{ bearer: [] }, { login: [] }],
    'x-access': access.kind === 'scope' ? { scope: access.scope } : access,
  };
  if (route.body) {
    const types = route.bodyTypes ?? ['json'];
    const schema = schemaOf(route.body, 'input');
    const example = route.example === undefined ? {} : { example: route.example };
    op.requestBody = {
      required: true,
      content: Object.fromEntries(
        types.map((t) => [
          t === 'json' ? 'application/json' : 'application/x-www-form-urlencoded',
          { schema, ...example },
        ]),
      ),
    };
  }
  return op;
}

/**
 * An operation of the OpenAI-compatible API (docs/openai-compatibility.md): served under its own
 * base path, answering errors in OpenAI's shape.
 */
function openAiOperation(route: Route): JsonSchema {
  const op = operation(route);
  const id = String(op.operationId);
  op.operationId = `openai${id.charAt(0).toUpperCase()}${id.slice(1)}`;
  for (const [status, response] of Object.entries(op.responses as Record<string, { content?: unknown }>)) {
    if (Number(status) >= 400) {
      response.content = { 'application/json': { schema: { $ref: '#/components/schemas/OpenAIError' } } };
    }
  }
  return op;
}

/** What the document describes, besides the API's own routes (`routes`, under `/api/v1`). */
export interface ApiRoutes {
  routes: ReadonlyArray<Route>;
  /** The MCP endpoint's tools (`/mcp`). */
  mcpTools?: ReadonlyArray<Pick<BoundMcpTool, 'name' | 'access'>>;
  /** The OpenAI-compatible routes, under `/openai/v1`. */
  openAiRoutes?: ReadonlyArray<Route>;
  /** The inbound workflow hooks, at the root (`/hooks/...`). */
  hookRoutes?: ReadonlyArray<Route>;
}

/**
 * The OpenAPI 3.1 document of the API, built from the same route definitions (and zod schemas)
 * that route and validate requests, so the document cannot drift from the behaviour; with the
 * MCP endpoint when its tools are given, and the routes served under another base (named by each
 * path's own `servers`): the OpenAI-compatible routes and the hooks, when they are.
 */
export function buildOpenApiDocument({
  routes,
  mcpTools = [],
  openAiRoutes = [],
  hookRoutes = [],
}: ApiRoutes): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  const add = (route: Route, op: JsonSchema, servers?: JsonSchema[]) => {
    const path = openApiPath(route.path);
    paths[path] ??= servers ? { servers } : {};
    paths[path][route.method] = op;
  };
  for (const route of routes) add(route, operation(route));
  for (const route of openAiRoutes) {
    add(route, openAiOperation(route), [{ url: '/openai/v1', description: 'The OpenAI-compatible API' }]);
  }
  for (const route of hookRoutes) {
    add(route, operation(route), [{ url: '/', description: 'Inbound workflow hooks, outside /api/v1' }]);
  }
  if (mcpTools.length > 0) paths['/mcp'] = mcpPathItem(mcpTools);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agent Platform API',
      version: '1.0.0',
      description:
        'Agents with persistent memory, workflows and signed webhooks. The same routes are served under /v1 with ' +
        'enveloped bodies ({success, data} or {success: false, error}).',
    },
    servers: [{ url: '/api/v1' }],
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An access token (JWT) from login or refresh, or an API key (apk_...)',
        },
        operator: {
          type: 'http',
          scheme: 'bearer',
          description: "The platform operator's token (OPERATOR_TOKEN); operator routes are served only when it is set",
        },
        login: {
          type: 'oauth2',
          description: 'Your e-mail and password: the login route issues an access token (OAuth2 password form)',
          flows: { password: { tokenUrl: '/api/v1/auth/login', scopes: {} } },
        },
      },
      schemas: {
        ScheduleNodeConfig: schemaOf(scheduleNodeConfig, 'input'),
        Error: {
          type: 'object',
          required: ['error', 'message'],
          properties: {
            error: { type: 'string' },
            message: { type: 'string' },
            details: {
              type: 'array',
              items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } },
            },
            retry_after: { type: 'integer', description: 'Seconds to wait before retrying (429 and 503)' },
          },
        },
        OpenAIError: {
          type: 'object',
          required: ['error'],
          description: 'Errors of /openai/v1, in OpenAI’s shape (docs/openai-compatibility.md)',
          properties: {
            error: {
              type: 'object',
              required: ['message', 'type', 'code', 'param'],
              properties: {
                message: { type: 'string' },
                type: { type: 'string' },
                code: { type: ['string', 'null'] },
                param: { type: ['string', 'null'] },
              },
            },
          },
        },
      },
    },
  };
}
