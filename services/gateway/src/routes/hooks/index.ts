import type Router from '@koa/router';
import type { Context } from 'koa';
import { NotFoundError } from '@agentplatform/service-kit';
import { HookTrigger } from '../../clients/hook-trigger.js';
import type { RouteDeps } from '../deps.js';
import { assertStorableKeys } from '../../http/validation.js';
import { EXECUTE_DEADLINE_MS } from '../workflows/index.js';
import { executionToJson } from '../workflows/workflows.mapping.js';

/** Credentials of the caller's own systems never travel into an execution's input (and its storage). */
const DROPPED_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

function hookInput(ctx: Context): Record<string, unknown> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(ctx.headers)) {
    if (value === undefined || DROPPED_HEADERS.has(name)) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(ctx.query)) if (value !== undefined) query[name] = value;
  const body = (ctx.request as { body?: unknown }).body;
  assertStorableKeys(body, 'body');
  assertStorableKeys(query, 'query');
  return { body: body ?? null, query, headers };
}

/**
 * Inbound workflow hooks (`POST /hooks/:hook_id[/path]`, docs/design.md section 7): public, outside
 * /api/v1, addressed by the workflow's secret hook id. Only an active workflow at its webhook
 * node's path answers; everything else is a 404. The per-hook rate limit runs before this (app.ts).
 */
export function mountHookRoutes(router: Router, { backends }: RouteDeps): void {
  // A last_node hook waits for the run like a synchronous execute.
  const hooks = new HookTrigger(backends.workflow, EXECUTE_DEADLINE_MS);
  router.post('/hooks/:hook_id{/*path}', async (ctx) => {
    const hookId = String(ctx.params.hook_id ?? '');
    if (!/^hk_[0-9A-Za-z]{32}$/.test(hookId)) throw new NotFoundError('Hook');
    const rawPath = (ctx.params as Record<string, unknown>).path;
    const path = Array.isArray(rawPath) ? rawPath.join('/') : String(rawPath ?? '');
    const answer = await hooks.trigger({ hookId, path, input: hookInput(ctx) });
    if (answer.responseMode === 'last_node' && answer.execution) {
      const execution = executionToJson(answer.execution);
      ctx.status = execution.status === 'running' ? 202 : 200;
      ctx.body = {
        execution_id: execution.execution_id,
        status: execution.status,
        output: execution.output ?? {},
        ...(execution.error ? { error: execution.error } : {}),
      };
      return;
    }
    ctx.status = 202;
    ctx.body = { execution_id: answer.executionId };
  });
}
