import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { runWithContext } from '@agentplatform/service-kit';

const VALID_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Takes the caller's X-Request-Id when it is sane, otherwise makes one; echoes it on the response. */
export function requestContext(): Middleware {
  return async (ctx, next) => {
    const given = ctx.get('x-request-id');
    const requestId = VALID_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    await runWithContext({ requestId }, next);
  };
}
