import type { RouteDefinition } from '../../http/route.js';
import type { RouteDeps } from '../deps.js';

/** The auth routes. */
export function authRoutes(_deps: RouteDeps): RouteDefinition<any, any, any>[] {
  return [];
}
