import { z } from 'zod';
import type { RouteDefinition } from '../http/route.js';

type JsonSchema = Record<string, unknown>;

function schemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
  }) as JsonSchema;
  return rest;
}

/** `/agents/:agent_id` -> `/agents/{agent_id}` */
function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function parameters(schema: z.ZodType | undefined, location: 'path' | 'query', path: string): JsonSchema[] {
  const names = location === 'path' ? [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]) : [];
  const json = schema ? schemaOf(schema, 'input') : {};
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  const all = new Set([...names, ...Object.keys(properties)]);
  return [...all].map((name) => ({
    name,
    in: location,
    required: location === 'path' || required.has(name),
    schema: properties[name] ?? { type: 'string' },
  }));
}

const ERROR_STATUSES: Record<string, string> = {
  '400': 'Invalid request (validation_error)',
  '401': 'Missing, invalid or expired token or key (unauthorized)',
  '403': 'Insufficient permissions (forbidden)',
  '404': 'Not found (not_found)',
  '429':
    'Rate limit exceeded (rate_limit_exceeded), also for repeated requests without valid credentials from one address; Retry-After header',
  '503':
    'A backend is unavailable or did not answer in time (service_unavailable); retry after retry_after seconds (Retry-After header)',
};

function operation(route: RouteDefinition<any, any, any>): JsonSchema {
  const status = String(route.status ?? 200);
  const responses: Record<string, unknown> = {
    [status]: {
      description: 'Success',
      ...(route.response ? { content: { 'application/json': { schema: schemaOf(route.response, 'output') } } } : {}),
    },
  };
  const errorRef = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  for (const [code, description] of Object.entries(ERROR_STATUSES)) {
    if (route.access.kind === 'none' && (code === '401' || code === '403')) continue;
    responses[code === '400' && route.validationStatus === 422 ? '422' : code] = { description, ...errorRef };
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
      ...(access.kind === 'none'
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
    security: access.kind === 'none' ? [] : [{ bearer: [] }],
    'x-access': access.kind === 'scope' ? { scope: access.scope } : access,
  };
  if (route.body) {
    const types = route.bodyTypes ?? ['json'];
    const schema = schemaOf(route.body, 'input');
    op.requestBody = {
      required: true,
      content: Object.fromEntries(
        types.map((t) => [t === 'json' ? 'application/json' : 'application/x-www-form-urlencoded', { schema }]),
      ),
    };
  }
  return op;
}

/**
 * The OpenAPI 3.1 document of the API, built from the same route definitions (and zod schemas)
 * that route and validate requests, so the document cannot drift from the behaviour.
 */
export function buildOpenApiDocument(routes: ReadonlyArray<RouteDefinition<any, any, any>>): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method] = operation(route);
  }
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
      },
      schemas: {
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
      },
    },
  };
}
