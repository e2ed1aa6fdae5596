import type { RouteDefinition } from '../../http/route.js';
import type { RouteDeps } from '../deps.js';

/** The agents routes. */
export function agentRoutes(_deps: RouteDeps): RouteDefinition<any, any, any>[] {
  return [];
}
