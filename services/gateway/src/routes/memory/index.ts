import type { RouteDefinition } from '../../http/route.js';
import type { RouteDeps } from '../deps.js';

/** The memory routes. */
export function memoryRoutes(_deps: RouteDeps): RouteDefinition<any, any, any>[] {
  return [];
}
