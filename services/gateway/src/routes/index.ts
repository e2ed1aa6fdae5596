import type { RouteDefinition } from '../http/route.js';

/** Every API route, served under `/api/v1` and `/v1`. Each area adds its list here. */
export function apiRoutes(): ReadonlyArray<RouteDefinition<any, any, any>> {
  return [];
}
