import { DomainError, ERROR_CODES, newId, type Logger, type Metrics } from '@agentplatform/service-kit';

/** `/v1/...` answers in the envelope shape B; everything else in the flat shape A (docs/design.md section 3). */
export function usesEnvelope(path: string): boolean {
  return path === '/v1' || path.startsWith('/v1/');
}

/** An error body of another API's shape for the paths under `prefix` (the OpenAI API's). */
export interface ErrorShape {
  prefix: string;
  /** `unknownRoute`: no route serves the path (a 404 of the router, not of a handler). */
  body(error: DomainError, unknownRoute: boolean): unknown;
}

/** Shape A: `{error, message, details?, retry_after?}`. */
export function flatErrorBody(error: DomainError) {
  return {
    error: error.code,
    message: error.message,
    ...(error.details.length > 0 ? { details: error.details } : {}),
    ...(error.retryAfter !== undefined ? { retry_after: error.retryAfter } : {}),
  };
}

/** Shape B: `{success: false, error: {code, message, details: [{field, reason, message}]}}`. */
export function envelopeErrorBody(error: DomainError) {
  return {
    success: false,
    error: {
      code: error.code,
      message: error.message,
      details: error.details.map((d) => ({
        field: d.field,
        reason: /\bis required$/.test(d.message) ? 'missing_required_field' : 'invalid_value',
        message: d.message,
      })),
      ...(error.retryAfter !== undefined ? { retry_after: error.retryAfter } : {}),
    },
  };
}

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  type?: string;
  message?: string;
}

/**
 * Turns anything thrown while handling a request into a DomainError. HTTP errors raised by Koa or
 * the body parser keep their meaning; anything unknown is logged with an id and answered as a
 * plain internal_error, never with a stack trace.
 */
export function toDomainError(error: unknown, logger: Logger, metrics?: Metrics): DomainError {
  if (error instanceof DomainError) {
    if (error.code === 'internal_error') metrics?.errors.inc({ kind: 'backend' });
    return error;
  }
  const http = error as HttpLikeError;
  const status = http?.status ?? http?.statusCode;
  if (typeof status === 'number' && status >= 400 && status <= 501) {
    if (status === 413) return new DomainError('payload_too_large', 'Request body exceeds the 1 MiB limit');
    if (status === 415) return new DomainError('unsupported_media_type', http.message ?? 'Unsupported content type');
    // co-body (under koa-body) throws JSON.parse's SyntaxError with status 400 and no type.
    if (status === 400 && (http.type === 'entity.parse.failed' || error instanceof SyntaxError)) {
      return new DomainError('validation_error', 'Malformed JSON body', [
        { field: 'body', message: 'is not valid JSON' },
      ]);
    }
    if (status === 400)
      return new DomainError('validation_error', http.expose && http.message ? http.message : 'Bad request');
    if (status === 404) return new DomainError('not_found', 'Not found');
    // 501 is the router's answer to a method it serves nowhere (TRACE): for the caller it is the
    // same as a method this route does not serve.
    if (status === 405 || status === 501)
      return new DomainError('method_not_allowed', 'Method not allowed on this route');
  }
  const errorId = newId('err');
  metrics?.errors.inc({ kind: 'gateway' });
  logger.error({ err: error, error_id: errorId }, 'unexpected error');
  return new DomainError('internal_error', `Internal error (${errorId})`);
}

export function httpStatusOf(error: DomainError): number {
  return ERROR_CODES[error.code].http;
}
