import type { RouteDefinition } from '../../http/route.js';
import type { RouteDeps } from '../deps.js';

/** The webhooks routes. */
export function webhookRoutes(_deps: RouteDeps): RouteDefinition<any, any, any>[] {
  return [];
}
