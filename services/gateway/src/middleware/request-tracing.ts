import type { Context, Middleware } from 'koa';
import {
  ROOT_CONTEXT,
  SpanKind,
  endHttpServerSpan,
  runRequestInSpan,
  runWithContext,
  startSpan,
  type Span,
} from '@agentplatform/service-kit';
import { takeRequestId } from './request-context.js';

/**
 * The request context (request-context.ts) and one server span per request, the root of its
 * trace: everything the request causes (gRPC calls, events, webhook deliveries, workflow runs)
 * hangs under it. Named by the matched route, never the raw path (ids in paths would make every
 * span name unique). A `traceparent` sent by a client is not continued: the gateway is the
 * platform's edge, and a caller must not be able to join (or flood) another request's trace; the
 * sampler decides here for the whole trace. Installed instead of `requestContext` when tracing is
 * on (app.ts). It adds no async function to the request: each is a promise more for every async
 * hook to follow.
 */
export function tracedRequestContext(): Middleware {
  return (ctx, next) => {
    const requestId = takeRequestId(ctx);
    const method = ctx.method;
    const span = startSpan(method, { kind: SpanKind.SERVER, parent: ROOT_CONTEXT });
    if (!span) return runWithContext({ requestId }, next);
    // A span the sampler dropped records nothing, so nothing is set on it or ended: it only
    // carries the decision to the calls the request makes. Nine requests in ten at the
    // production sampling pay no promise and no closures for it.
    if (!span.isRecording()) return runRequestInSpan({ requestId }, span, next);
    const path = ctx.path;
    return runRequestInSpan({ requestId }, span, next).then(
      () => endRequestSpan(span, ctx, method, path, requestId),
      (error: unknown) => {
        endRequestSpan(span, ctx, method, path, requestId);
        throw error;
      },
    );
  };
}

function endRequestSpan(span: Span, ctx: Context, method: string, path: string, requestId: string): void {
  const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  endHttpServerSpan(span, {
    method,
    path,
    requestId,
    status: ctx.status,
    route: typeof route === 'string' ? route : undefined,
  });
}
