import type { Context, Middleware } from 'koa';
import { failSpan, runRequestInRootSpan, runWithContext, startRootSpan, type Span } from '@agentplatform/service-kit';
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
 * when the request ends (the SDK checks each attribute it is given, and those given at the start
 * twice); it adds no async function to the request: each is a promise more for every async hook
 * to follow. The span is a lean root span (service-kit's tracing-lean.ts): one object, exported
 * as the SDK's are; its context is one small object (`RootSpanContext`).
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
  const status = ctx.status;
  // One by one: an object of them would be one more object and key list per request.
  span.setAttribute('http.request.method', method);
  span.setAttribute('url.path', path);
  // The request id (X-Request-Id) finds a request's trace from a log line or a support ticket.
  span.setAttribute('agentplatform.request.id', requestId);
  span.setAttribute('http.response.status_code', status);
  if (typeof route === 'string') {
    span.updateName(`${method} ${route}`);
    span.setAttribute('http.route', route);
  }
  if (status >= 500) failSpan(span, new Error(`HTTP ${status}`));
  span.end();
}
