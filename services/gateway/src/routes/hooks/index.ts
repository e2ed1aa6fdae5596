import type { Context } from 'koa';
import { DomainError, HOOK_ID, NotFoundError, setCurrentTenant } from '@agentplatform/service-kit';
import { clientAddress } from '../../http/client-address.js';
import { defineRoute, publicAccess, type Route } from '../../http/route.js';
import { assertStorableKeys } from '../../http/validation.js';
import type { AnonymousLimiter } from '../../http/anonymous-limit.js';
import type { RouteDeps } from '../deps.js';
import { executionToJson } from '../workflows/workflows.mapping.js';
import { hookBody, hookParams, hookPathParams, hookResponse } from './hooks.schemas.js';

/** Credentials of the caller's own systems never travel into an execution's input (and its storage). */
const DROPPED_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

/** What the execution gets as its input: the body, the query and the headers as they came. */
function hookInput(ctx: Context, body: unknown): Record<string, unknown> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(ctx.headers)) {
    if (value === undefined || DROPPED_HEADERS.has(name)) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(ctx.query)) if (value !== undefined) query[name] = value;
  // The query's keys were checked before the body was read (admit), the body's when it was parsed
  // (http/json-body.ts).
  return { body: body ?? null, query, headers };
}

interface HookRouteDeps extends Pick<RouteDeps, 'backends'> {
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
 * node's path answers; everything else is a 404. The secret id is the hook's credential, so before
 * the body is read (the route's `beforeBody`): the address's budget of requests without valid
 * credentials is checked, the id's shape, then whether the workflow service knows the hook
 * (`resolveHook`); an unknown one draws from that budget and writes no rate-limit counter; the
 * hook's own limit is counted only for a hook that exists (docs/security.md, "Limits on hostile input").
 * A known hook's request acts for its workflow's tenant from then on: its call to the workflow
 * service takes a place of that tenant's share, as an authenticated request's would (docs/design.md
 * section 5), so one tenant's hooks cannot hold every place another tenant's calls need.
 */
export function hookRoutes({ backends, anonymous, hookLimit }: HookRouteDeps): Route[] {
  /** An unknown hook is a request without valid credentials: it costs the address one from its budget. */
  const chargingUnknown = async <T>(ctx: Context, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (isNotFound(error)) anonymous.take(clientAddress(ctx));
      throw error;
    }
  };
  const admit = async (ctx: Context, hookId: string, path: string) => {
    anonymous.check(clientAddress(ctx));
    // The query becomes the execution's input.query: a key MongoDB or the API refuses is a 400 naming it.
    assertStorableKeys(ctx.query, 'query');
    await chargingUnknown(ctx, async () => {
      if (!HOOK_ID.test(hookId)) throw new NotFoundError('Hook');
      const { tenantId } = await backends.resolveHook(hookId, path);
      // Empty from a workflow service older than the gateway: the hook counts for no tenant, as before.
      if (tenantId) setCurrentTenant(tenantId);
    });
    if (hookLimit) await hookLimit(ctx, hookId);
  };
  // admit ran before the body was read; a hook paused or rotated since it was resolved (the
  // directory remembers live hooks for a few seconds) is refused by TriggerHook itself.
  const trigger = (ctx: Context, hookId: string, path: string, input: Record<string, unknown>) =>
    chargingUnknown(ctx, async () => {
      const answer = await backends.triggerHook({ hookId, path, input });
      if (answer.responseMode !== 'last_node' || !answer.execution) return { execution_id: answer.executionId };
      const execution = executionToJson(answer.execution);
      // A run still going (or queued behind the tenant's executions in flight) is accepted, not done.
      if (execution.status !== 'running' && execution.status !== 'queued') ctx.state.responseStatus = 200;
      return {
        execution_id: execution.execution_id,
        status: execution.status,
        output: execution.output ?? {},
        ...(execution.error ? { error: execution.error } : {}),
      };
    });
  const common = {
    method: 'post',
    tag: 'hooks',
    access: publicAccess,
    body: hookBody,
    bodyTypes: ['json', 'form'],
    example: { order_id: 'ord_123', amount: 42 },
    status: 202,
    alternateStatus: 200,
    response: hookResponse,
  } as const;
  return [
    defineRoute({
      ...common,
      path: '/hooks/:hook_id',
      summary:
        "Start a workflow from its webhook node: 202 with the execution id; a last_node hook answers the run's output (200, or 202 while still running)",
      params: hookParams,
      beforeBody: ({ ctx, params }) => admit(ctx, params.hook_id, ''),
      handler: ({ ctx, params, body }) => trigger(ctx, params.hook_id, '', hookInput(ctx, body)),
    }),
    defineRoute({
      ...common,
      path: '/hooks/:hook_id/*path',
      summary: "Start a workflow from its webhook node at a path (the node's config.path), as without one",
      params: hookPathParams,
      beforeBody: ({ ctx, params }) => admit(ctx, params.hook_id, params.path),
      handler: ({ ctx, params, body }) => trigger(ctx, params.hook_id, params.path, hookInput(ctx, body)),
    }),
  ];
}
