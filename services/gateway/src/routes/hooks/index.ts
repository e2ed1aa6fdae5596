import type Router from '@koa/router';
import type { Context } from 'koa';
import { DomainError, NotFoundError } from '@agentplatform/service-kit';
import { HookDirectory } from '../../clients/hook-directory.js';
import { HookTrigger } from '../../clients/hook-trigger.js';
import type { RouteDeps } from '../deps.js';
import { clientAddress } from '../../http/client-address.js';
import { assertStorableKeys } from '../../http/validation.js';
import type { AnonymousLimiter } from '../../http/anonymous-limit.js';
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
  // The body's keys and depth were checked when it was parsed (http/json-body.ts).
  const body = (ctx.request as { body?: unknown }).body;
  assertStorableKeys(query, 'query');
  return { body: body ?? null, query, headers };
}

export interface HookRouteDeps extends Pick<RouteDeps, 'backends' | 'config'> {
  /** The per-address budget of requests without valid credentials; an unknown hook id is one. */
  anonymous: AnonymousLimiter;
  /** The per-hook rate limit, counted once the hook is known to exist. */
  hookLimit?: (ctx: Context, hookId: string) => Promise<void>;
}

function isNotFound(error: unknown): boolean {
  return error instanceof DomainError && error.code === 'not_found';
}

/**
 * Inbound workflow hooks (`POST /hooks/:hook_id[/path]`, docs/design.md section 7): public, outside
 * /api/v1, addressed by the workflow's secret hook id. Only an active workflow at its webhook
 * node's path answers; everything else is a 404. The secret id is the hook's credential: an
 * unknown one draws from the address's budget of requests without valid credentials (checked
 * before the body is read: app.ts) and writes no rate-limit counter; the hook's own limit is
 * counted only for a hook the workflow service knows (docs/security.md, "Limits on hostile input").
 */
export function mountHookRoutes(router: Router, { backends, config, anonymous, hookLimit }: HookRouteDeps): void {
  // A last_node hook waits for the run like a synchronous execute.
  const hooks = new HookTrigger(backends.workflow, EXECUTE_DEADLINE_MS);
  const directory = new HookDirectory(backends.workflow, config.GRPC_DEADLINE_MS);
  router.post('/hooks/:hook_id{/*path}', async (ctx) => {
    const hookId = String(ctx.params.hook_id ?? '');
    const rawPath = (ctx.params as Record<string, unknown>).path;
    const path = Array.isArray(rawPath) ? rawPath.join('/') : String(rawPath ?? '');
    const input = hookInput(ctx);
    let answer: Awaited<ReturnType<HookTrigger['trigger']>>;
    try {
      if (!/^hk_[0-9A-Za-z]{32}$/.test(hookId)) throw new NotFoundError('Hook');
      await directory.resolve(hookId, path);
      if (hookLimit) await hookLimit(ctx, hookId);
      answer = await hooks.trigger({ hookId, path, input });
    } catch (error) {
      if (isNotFound(error)) anonymous.take(clientAddress(ctx));
      throw error;
    }
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
