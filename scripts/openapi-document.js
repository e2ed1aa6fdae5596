// @ts-check
'use strict';
/**
 * The gateway's OpenAPI document, built from its route definitions (its build output) exactly as
 * the gateway serves it: the source of the TypeScript SDK's types and of the Python SDK.
 */
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

function openApiDocument() {
  const gateway = path.join(ROOT, 'services/gateway/dist');
  const { apiRoutes, openAiRoutes } = require(path.join(gateway, 'routes/index.js'));
  const { hookRoutes } = require(path.join(gateway, 'routes/hooks/index.js'));
  const { buildOpenApiDocument } = require(path.join(gateway, 'openapi/openapi-document.js'));
  const { bindTools, mcpTools } = require(path.join(gateway, 'mcp/mcp.tools.js'));
  // Route definitions and MCP tools only read their dependencies when a request is handled.
  const deps = { backends: {}, config: {}, logger: undefined, anonymous: undefined };
  const routes = apiRoutes(deps);
  return buildOpenApiDocument({
    routes,
    mcpTools: bindTools(mcpTools(deps), routes),
    openAiRoutes: openAiRoutes(deps),
    hookRoutes: hookRoutes(deps),
  });
}

module.exports = { openApiDocument };
