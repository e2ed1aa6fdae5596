import type { Middleware } from 'koa';
import { NotFoundError, type Logger, type Metrics } from '@agentplatform/service-kit';
import { envelopeErrorBody, flatErrorBody, httpStatusOf, toDomainError, usesEnvelope } from '../http/error-body.js';

/**
 * The outermost handler: every error becomes a JSON body in the path's shape, and a request no
 * route answered becomes a 404 JSON body. Successful `/v1` bodies are wrapped in `{success, data}`.
 */
export function errorHandler(logger: Logger, metrics: Metrics): Middleware {
  return async (ctx, next) => {
    const envelope = usesEnvelope(ctx.path);
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new NotFoundError('Route');
      if (envelope && ctx.status < 300 && ctx.body !== undefined && !ctx.state.rawBody) {
        ctx.body = { success: true, data: ctx.body };
      }
    } catch (thrown) {
      const error = toDomainError(thrown, logger, metrics);
      ctx.status =
        error.code === 'validation_error' && typeof ctx.state.validationStatus === 'number'
          ? ctx.state.validationStatus
          : httpStatusOf(error);
      ctx.body = envelope ? envelopeErrorBody(error) : flatErrorBody(error);
      if (error.retryAfter !== undefined) ctx.set('Retry-After', String(error.retryAfter));
    }
  };
}
