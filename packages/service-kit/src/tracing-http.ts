import { SpanStatusCode, type Span } from '@opentelemetry/api';

/** The attributes of an HTTP server request's span, in the order they are set and written. */
export const HTTP_REQUEST = {
  method: 'http.request.method',
  path: 'url.path',
  // The request id (X-Request-Id) finds a request's trace from a log line or a support ticket.
  requestId: 'agentplatform.request.id',
  status: 'http.response.status_code',
  route: 'http.route',
} as const;

/**
 * Sets what the gateway records of every request on its span, one call at a time: the attributes
 * above, the name `<method> <route>` when a route matched (never the raw path: ids in paths would
 * make every name unique), and a failed status from 500 on (`failSpan`'s, with the message
 * `HTTP <status>`). The span is not ended. What a lean span writes from the values directly
 * (tracing-lean.ts) is the record these calls leave (unit test).
 */
export function setHttpRequestAttributes(
  span: Span,
  method: string,
  path: string,
  requestId: string,
  status: number,
  route: string | undefined,
): void {
  span.setAttribute(HTTP_REQUEST.method, method);
  span.setAttribute(HTTP_REQUEST.path, path);
  span.setAttribute(HTTP_REQUEST.requestId, requestId);
  span.setAttribute(HTTP_REQUEST.status, status);
  if (route !== undefined) {
    span.updateName(`${method} ${route}`);
    span.setAttribute(HTTP_REQUEST.route, route);
  }
  if (status >= 500) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${status}` });
    span.setAttribute('error.type', 'Error');
  }
}
