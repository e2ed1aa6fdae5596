import { randomUUID } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { runWithContext } from '@agentplatform/service-kit';

const VALID_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Takes the caller's X-Request-Id when it is sane, otherwise makes one; echoes it on the response. */
export function requestContext(): Middleware {
  return async (ctx, next) => {
    await runWithContext({ requestId: takeRequestId(ctx) }, next);
  };
}

/** The request's id (the caller's X-Request-Id when it is sane, else a new one), kept in `ctx.state` and echoed. */
export function takeRequestId(ctx: Context): string {
  const given = ctx.get('x-request-id');
  const requestId = VALID_ID.test(given) ? given : randomUUID();
  ctx.state.requestId = requestId;
  ctx.set('X-Request-Id', requestId);
  return requestId;
}
