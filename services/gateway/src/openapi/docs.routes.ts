import { readFileSync } from 'node:fs';
import path from 'node:path';
import type Router from '@koa/router';
import { getAbsoluteFSPath } from 'swagger-ui-dist';
import type { Route } from '../http/route.js';
import type { BoundMcpTool } from '../mcp/mcp.tools.js';
import { buildOpenApiDocument } from './openapi-document.js';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Agent Platform API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/swagger-ui-standalone-preset.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/api/v1/openapi.json',
  dom_id: '#swagger-ui',
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
  // The validator badge would call an outside host, which the page's CSP refuses anyway.
  validatorUrl: null,
  persistAuthorization: true,
});
`;

/** Only our own assets: the docs page works offline and fetches nothing from a CDN. */
const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'";

/**
 * `GET /api/v1/openapi.json` (and `/v1/openapi.json`): the OpenAPI document, built once from the
 * route registry. `GET /docs`: Swagger UI served from the swagger-ui-dist package.
 */
export function mountDocsRoutes(
  router: Router,
  routes: ReadonlyArray<Route>,
  mcpTools: ReadonlyArray<BoundMcpTool> = [],
): void {
  const document = buildOpenApiDocument(routes, mcpTools);
  const assetDir = getAbsoluteFSPath();
  const assets = new Map(Object.keys(ASSETS).map((name) => [name, readFileSync(path.join(assetDir, name))]));

  for (const prefix of ['/api/v1', '/v1']) {
    router.get(`${prefix}/openapi.json`, (ctx) => {
      ctx.state.rawBody = true;
      ctx.body = document;
    });
  }
  // What a person or a client that lands on the bare address needs to find its way.
  const index = {
    name: 'Agent Platform API',
    docs: '/docs',
    openapi: '/api/v1/openapi.json',
    mcp: '/mcp',
    base_paths: { flat: '/api/v1', envelope: '/v1' },
    health: { live: '/healthz', ready: '/readyz' },
  };
  for (const at of ['/', '/api/v1', '/v1']) {
    router.get(at, (ctx) => {
      ctx.state.rawBody = true;
      ctx.body = index;
    });
  }
  router.get('/docs', (ctx) => {
    ctx.set('Content-Security-Policy', CSP);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PAGE;
  });
  router.get('/docs/init.js', (ctx) => {
    ctx.type = 'application/javascript; charset=utf-8';
    ctx.body = INIT;
  });
  router.get('/docs/:asset', (ctx) => {
    const body = assets.get(ctx.params.asset);
    if (!body) return;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.type = ASSETS[ctx.params.asset];
    ctx.body = body;
  });
}
