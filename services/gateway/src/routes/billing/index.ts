import type { RouteDefinition } from '../../http/route.js';
import type { RouteDeps } from '../deps.js';

/** The billing routes. */
export function billingRoutes(_deps: RouteDeps): RouteDefinition<any, any, any>[] {
  return [];
}
