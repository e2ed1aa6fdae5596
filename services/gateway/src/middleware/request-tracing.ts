import type { Context, Middleware } from 'koa';
import {
  endHttpServerSpan,
  runRequestInRootSpan,
  runWithContext,
  startRootSpan,
  type Span,
} from '@agentplatform/service-kit';
import { takeRequestId } from './request-context.js';

/**
 * The request context (request-context.ts) and one server span per request, the root of its
 * trace: everything the request causes (gRPC calls, events, webhook deliveries, workflow runs)
 * hangs under it. Named by the matched route, never the raw path (ids in paths would make every
 * span name unique). A `traceparent` sent by a client is not continued: the gateway is the
 * platform's edge, and a caller must not be able to join (or flood) another request's trace.
 * Installed instead of `requestContext` when tracing is on (app.ts).
 *
 * Both contexts are set in one switch (`runRequestInRootSpan`), and the span's attributes once,
 * when the request ends (`endHttpServerSpan`: the lean root span writes its record from them
 * directly); it adds no async function to the request: each is a promise more for every async
 * hook to follow. The span is a lean root span (service-kit's tracing-lean.ts): one object,
 * exported as the SDK's are; its context is one small object (`RootSpanContext`).
 */
export function tracedRequestContext(): Middleware {
  return (ctx, next) => {
    const requestId = takeRequestId(ctx);
    const method = ctx.method;
    const span = startRootSpan(method);
    if (!span) return runWithContext({ requestId }, next);
    const path = ctx.path;
    return runRequestInRootSpan({ requestId }, span, next).then(
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
  endHttpServerSpan(span, method, path, requestId, ctx.status, typeof route === 'string' ? route : undefined);
}
