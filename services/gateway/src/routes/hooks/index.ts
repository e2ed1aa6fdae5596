import type Router from '@koa/router';
import type { RouteDeps } from '../deps.js';

/** Inbound workflow hooks (`POST /hooks/:workflow_id[/path]`): public, outside /api/v1. */
export function mountHookRoutes(_router: Router, _deps: RouteDeps): void {
  // Filled in by the workflows area.
}
