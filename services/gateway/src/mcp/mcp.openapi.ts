import type { BoundMcpTool } from './mcp.tools.js';

type JsonSchema = Record<string, unknown>;

const errorRef = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/**
 * What the transport itself answers (a JSON-RPC error object), or the platform's error body when
 * the gateway refuses the request before it reaches the transport (a malformed JSON body, say).
 */
const transportError = (description: string) => ({
  description,
  content: {
    'application/json': {
      schema: {
        anyOf: [
          {
            type: 'object',
            properties: {
              jsonrpc: { type: 'string' },
              id: { type: ['string', 'number', 'null'] },
              error: { type: 'object', properties: { code: { type: 'integer' }, message: { type: 'string' } } },
            },
            required: ['jsonrpc', 'error'],
          },
          { $ref: '#/components/schemas/Error' },
        ],
      },
    },
  },
});

const notAllowed = (method: string) => ({
  operationId: `${method}Mcp`,
  summary: 'Not served: the MCP endpoint is stateless (no session stream to open or end)',
  tags: ['mcp'],
  responses: { '405': { ...errorRef('Method not allowed (method_not_allowed); Allow: POST') } },
  security: [],
});

/**
 * `/mcp` in the OpenAPI document: JSON-RPC over one POST, so the document can only say what goes
 * in and out at the HTTP level; the tools are listed in the description with their scopes.
 */
export function mcpPathItem(tools: ReadonlyArray<Pick<BoundMcpTool, 'name' | 'access'>>): JsonSchema {
  const toolList = tools
    .map((t) => `\`${t.name}\` (${t.access.kind === 'scope' ? t.access.scope : 'any caller'})`)
    .join(', ');
  return {
    // The endpoint is not under the API's /api/v1 base path.
    servers: [{ url: '/' }],
    post: {
      operationId: 'postMcp',
      summary: 'The platform as an MCP server (Streamable HTTP, stateless): one JSON-RPC 2.0 message per request',
      description:
        'For MCP clients (see docs/mcp.md): send `Accept: application/json, text/event-stream`. Tools, with the ' +
        `scope each needs: ${toolList}. A failing tool call is a result with \`isError: true\` whose text is the ` +
        'platform error body, not an HTTP error.',
      tags: ['mcp'],
      parameters: [
        {
          name: 'tenant_id',
          in: 'query',
          required: false,
          schema: { type: 'string' },
          description: "The tenant to act on (default: the caller's tenant)",
        },
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['jsonrpc', 'method'],
              properties: {
                jsonrpc: { const: '2.0' },
                id: { type: ['string', 'integer'] },
                method: { type: 'string', description: 'initialize, tools/list, tools/call, ...' },
                params: { type: 'object', additionalProperties: true },
              },
            },
            example: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
          },
        },
      },
      responses: {
        '200': {
          description: 'The JSON-RPC response',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['jsonrpc', 'id'],
                properties: {
                  jsonrpc: { const: '2.0' },
                  id: { type: ['string', 'integer'] },
                  result: { type: 'object', additionalProperties: true },
                  error: { type: 'object', additionalProperties: true },
                },
              },
            },
          },
        },
        '202': { description: 'A notification or response was accepted (no body)' },
        '400': transportError('Not a JSON-RPC message, or a batch (one message per request)'),
        '401': {
          ...errorRef('Missing, invalid or expired token or key (unauthorized)'),
          headers: { 'WWW-Authenticate': { schema: { type: 'string' }, description: 'Bearer' } },
        },
        '403': errorRef('An API key of another tenant than tenant_id (forbidden)'),
        '406': transportError('The Accept header does not list both application/json and text/event-stream'),
        '413': errorRef('Body over 1 MiB (payload_too_large)'),
        '415': transportError('Content-Type is not application/json'),
        '429': errorRef('Rate limit exceeded (rate_limit_exceeded): the REST budget of the tenant; Retry-After header'),
      },
      security: [{ bearer: [] }, { login: [] }],
    },
    get: notAllowed('get'),
    delete: notAllowed('delete'),
  };
}
