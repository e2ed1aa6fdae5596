import { readFileSync } from 'node:fs';
import path from 'node:path';
import type Router from '@koa/router';
import { buildOpenApiDocument, type ApiRoutes } from './openapi-document.js';

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

/**
 * swagger-ui-dist's folder, found without importing the package: its main module evaluates the
 * whole browser bundle (about 40 MB of a Node process's memory) to export it.
 */
function assetDir(): string {
  return path.dirname(require.resolve('swagger-ui-dist/package.json'));
}

/** Only our own assets: the docs page works offline and fetches nothing from a CDN. */
const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'";

/**
 * `GET /api/v1/openapi.json` (and `/v1/openapi.json`): the OpenAPI document, built from the route
 * registry on its first request and kept. `GET /docs`: Swagger UI served from the swagger-ui-dist
 * package, each asset read on its first request. An idle gateway holds neither (docs/performance.md).
 */
export function mountDocsRoutes(router: Router, api: ApiRoutes): void {
  let document: ReturnType<typeof buildOpenApiDocument> | undefined;
  const assets = new Map<string, Buffer>();
  const asset = (name: string): Buffer | undefined => {
    if (!Object.hasOwn(ASSETS, name)) return undefined;
    let body = assets.get(name);
    if (!body) {
      body = readFileSync(path.join(assetDir(), name));
      assets.set(name, body);
    }
    return body;
  };

  for (const prefix of ['/api/v1', '/v1']) {
    router.get(`${prefix}/openapi.json`, (ctx) => {
      ctx.state.rawBody = true;
      document ??= buildOpenApiDocument(api);
      ctx.body = document;
    });
  }
  // What a person or a client that lands on the bare address needs to find its way.
  const index = {
    name: 'Agent Platform API',
    docs: '/docs',
    openapi: '/api/v1/openapi.json',
    mcp: '/mcp',
    openai: '/openai/v1',
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
    const body = asset(ctx.params.asset);
    if (!body) return;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.type = ASSETS[ctx.params.asset];
    ctx.body = body;
  });
}
