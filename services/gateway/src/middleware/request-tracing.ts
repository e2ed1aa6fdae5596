import type { Middleware } from 'koa';
import { SpanKind, contextWithSpan, failSpan, runInTraceContext, startSpan } from '@agentplatform/service-kit';

/**
 * One server span per request, the root of its trace: everything the request causes (gRPC calls,
 * events, webhook deliveries, workflow runs) hangs under it. Named by the matched route, never the
 * raw path (ids in paths would make every span name unique). A `traceparent` sent by a client is
 * not continued: the gateway is the platform's edge, and a caller must not be able to join (or
 * flood) another request's trace. Installed only when tracing is on (app.ts).
 */
export function requestTracing(): Middleware {
  return async (ctx, next) => {
    const span = startSpan(ctx.method, {
      kind: SpanKind.SERVER,
      // The request id (X-Request-Id) finds a request's trace from a log line or a support ticket.
      attributes: {
        'http.request.method': ctx.method,
        'url.path': ctx.path,
        'agentplatform.request.id': String(ctx.state.requestId ?? ''),
      },
    });
    try {
      await runInTraceContext(contextWithSpan(span), next);
    } finally {
      const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      if (span) {
        if (typeof route === 'string') {
          span.updateName(`${ctx.method} ${route}`);
          span.setAttribute('http.route', route);
        }
        span.setAttribute('http.response.status_code', ctx.status);
        if (ctx.status >= 500) failSpan(span, new Error(`HTTP ${ctx.status}`));
        span.end();
      }
    }
  };
}
