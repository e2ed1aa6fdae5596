import Koa, { type Context } from 'koa';
import Router from '@koa/router';
import { tracingEnabled, type Logger, type Metrics } from '@agentplatform/service-kit';
import type { Backends } from './clients/backends.js';
import type { GatewayConfig } from './config.js';
import { mountConsoleRoutes } from './http/console-static.js';
import { closeWhenBodyUnread } from './http/json-body.js';
import { mountBeforeBody, mountRoutes, type Route, type RouteGuards } from './http/route.js';
import { mountMcpRoutes } from './mcp/mcp.routes.js';
import { bindTools, mcpTools } from './mcp/mcp.tools.js';
import { accessLog } from './middleware/access-log.js';
import type { AnonymousLimiter } from './http/anonymous-limit.js';
import type { IdempotencyStore } from './middleware/idempotency.js';
import { errorHandler, methodNotAllowed } from './middleware/error-handler.js';
import { requestContext } from './middleware/request-context.js';
import { tracedRequestContext } from './middleware/request-tracing.js';
import { mountHealthRoutes } from './routes/health.routes.js';
import { hookRoutes } from './routes/hooks/index.js';
import { openAiRouter } from './routes/openai/index.js';
import { openAiErrorShape } from './routes/openai/openai-errors.js';
import { mountDocsRoutes } from './openapi/docs.routes.js';

interface AppDeps {
  config: GatewayConfig;
  logger: Logger;
  metrics: Metrics;
  backends: Backends;
  /** The API's routes, served under both `/api/v1` (shape A) and `/v1` (shape B). */
  routes: ReadonlyArray<Route>;
  /** The OpenAI-compatible routes, served under `/openai/v1` (docs/design.md section 11). */
  openAiRoutes?: ReadonlyArray<Route>;
  guards: RouteGuards;
  /** Idempotency-Key for MCP tool calls (the store behind `guards.idempotency`). */
  mcpIdempotency?: IdempotencyStore['once'];
  /** Per-hook limit on the public inbound hooks (`/hooks/<hook_id>...`), for hooks that exist. */
  hookLimit?: (ctx: Context, hookId: string) => Promise<void>;
  /** The per-address budget of requests without valid credentials (shared with the access guard). */
  anonymous: AnonymousLimiter;
}

const API_PREFIXES = ['/api/v1', '/v1'] as const;

export function createApp(deps: AppDeps): Koa {
  // Koa takes the client address from the last `maxIpsCount` X-Forwarded-For entries, so one a
  // client wrote itself (left of those its trusted proxies appended) is never believed.
  const hops = deps.config.TRUSTED_PROXY_HOPS;
  const app = new Koa({ proxy: hops > 0, maxIpsCount: hops });
  app.silent = true;

  // With tracing on, the request context and the request's span are set together (one switch).
  app.use(tracingEnabled() ? tracedRequestContext() : requestContext());
  app.use(accessLog(deps.logger));
  app.use(closeWhenBodyUnread());
  app.use(errorHandler(deps.logger, deps.metrics, [openAiErrorShape]));
  app.use(methodNotAllowed());
  // Each route reads its body once the request is admitted (http/json-body.ts, readBody); what
  // the hook routes can refuse from the path alone (a spent address budget, an unknown hook id, a
  // hook over its rate) is refused before their access rule is even asked (routes/hooks).
  const hooks = hookRoutes(deps);
  const beforeBody = new Router();
  mountBeforeBody(beforeBody, hooks);
  app.use(beforeBody.routes());
  const root = new Router();
  const mcpToolList = bindTools(mcpTools(deps), deps.routes);
  mountHealthRoutes(root, deps.backends);
  mountDocsRoutes(root, {
    routes: deps.routes,
    mcpTools: mcpToolList,
    openAiRoutes: deps.openAiRoutes,
    hookRoutes: hooks,
  });
  mountConsoleRoutes(root);
  mountRoutes(root, hooks, deps.guards);
  mountMcpRoutes(root, {
    guard: deps.guards.access,
    tools: mcpToolList,
    idempotency: deps.mcpIdempotency,
    logger: deps.logger,
    metrics: deps.metrics,
  });
  app.use(root.routes());
  // A method a path does not serve answers 405 with the methods it does in `Allow` (RFC 9110);
  // methodNotAllowed (middleware/error-handler.ts) writes the body.
  app.use(root.allowedMethods());
  if (deps.openAiRoutes) app.use(openAiRouter(deps.openAiRoutes, deps.guards).routes());

  for (const prefix of API_PREFIXES) {
    const api = new Router({ prefix });
    mountRoutes(api, deps.routes, deps.guards);
    app.use(api.routes());
    app.use(api.allowedMethods());
  }
  return app;
}
