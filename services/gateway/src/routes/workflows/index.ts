import type { RouteDefinition } from '../../http/route.js';
import type { RouteDeps } from '../deps.js';

/** The workflows routes. */
export function workflowRoutes(_deps: RouteDeps): RouteDefinition<any, any, any>[] {
  return [];
}
