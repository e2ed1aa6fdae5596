import type { Route } from '../http/route.js';
import { agentRoutes } from './agents/index.js';
import { authRoutes } from './auth/index.js';
import { billingRoutes } from './billing/index.js';
import type { RouteDeps } from './deps.js';
import { memoryRoutes } from './memory/index.js';
import { webhookRoutes } from './webhooks/index.js';
import { workflowRoutes } from './workflows/index.js';

/** Every API route, served under `/api/v1` and `/v1`. Each area owns its folder. */
export function apiRoutes(deps: RouteDeps): Route[] {
  return [
    ...authRoutes(deps),
    ...billingRoutes(deps),
    ...agentRoutes(deps),
    ...memoryRoutes(deps),
    ...workflowRoutes(deps),
    ...webhookRoutes(deps),
  ];
}

/** The OpenAI-compatible routes, served under `/openai/v1` (docs/design.md section 11). */
export { openAiRoutes } from './openai/index.js';
