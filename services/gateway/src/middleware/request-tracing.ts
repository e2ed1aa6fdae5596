import type { Context, Middleware } from 'koa';
import { contextWithSpan, failSpan, runInTraceContext, startRootSpan, type Span } from '@agentplatform/service-kit';

/**
 * One server span per request, the root of its trace: everything the request causes (gRPC calls,
 * events, webhook deliveries, workflow runs) hangs under it. Named by the matched route, never the
 * raw path (ids in paths would make every span name unique). A `traceparent` sent by a client is
 * not continued: the gateway is the platform's edge, and a caller must not be able to join (or
 * flood) another request's trace. Installed only when tracing is on (app.ts).
 *
 * Its attributes are set once, when the request ends (the SDK checks each attribute it is given,
 * and those given at the start twice), and it adds no async function of its own to the request:
 * each is a promise more for every async hook to follow. The span is a lean root span
 * (service-kit's tracing-lean.ts): one object, exported as the SDK's are.
 */
export function requestTracing(): Middleware {
  return (ctx, next) => {
    const span = startRootSpan(ctx.method);
    if (!span) return next();
    const path = ctx.path;
    return runInTraceContext(contextWithSpan(span), next).then(
      () => endRequestSpan(span, ctx, path),
      (error: unknown) => {
        endRequestSpan(span, ctx, path);
        throw error;
      },
    );
  };
}

function endRequestSpan(span: Span, ctx: Context, path: string): void {
  const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  const attributes: Record<string, string | number> = {
    'http.request.method': ctx.method,
    'url.path': path,
    // The request id (X-Request-Id) finds a request's trace from a log line or a support ticket.
    'agentplatform.request.id': String(ctx.state.requestId ?? ''),
    'http.response.status_code': ctx.status,
  };
  if (typeof route === 'string') {
    span.updateName(`${ctx.method} ${route}`);
    attributes['http.route'] = route;
  }
  span.setAttributes(attributes);
  if (ctx.status >= 500) failSpan(span, new Error(`HTTP ${ctx.status}`));
  span.end();
}
