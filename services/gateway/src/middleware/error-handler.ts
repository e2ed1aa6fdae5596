import type { Middleware } from 'koa';
import { DomainError, NotFoundError, type Logger, type Metrics } from '@agentplatform/service-kit';
import {
  envelopeErrorBody,
  flatErrorBody,
  httpStatusOf,
  toDomainError,
  usesEnvelope,
  type ErrorShape,
} from '../http/error-body.js';

/**
 * The outermost handler: every error becomes a JSON body in the path's shape (shape A or B, or
 * one of `shapes` for the paths it covers, e.g. the OpenAI API's), and a request no route answered
 * becomes a 404 JSON body. Successful `/v1` bodies are wrapped in `{success, data}`.
 */
export function errorHandler(logger: Logger, metrics: Metrics, shapes: readonly ErrorShape[] = []): Middleware {
  return async (ctx, next) => {
    const envelope = usesEnvelope(ctx.path);
    let unknownRoute = false;
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        unknownRoute = true;
        throw new NotFoundError('Route');
      }
      if (envelope && ctx.status < 300 && ctx.body !== undefined && !ctx.state.rawBody) {
        ctx.body = { success: true, data: ctx.body };
      }
    } catch (thrown) {
      const error = toDomainError(thrown, logger, metrics);
      const shape = shapes.find((s) => ctx.path.startsWith(s.prefix));
      ctx.status =
        !shape && error.code === 'validation_error' && typeof ctx.state.validationStatus === 'number'
          ? ctx.state.validationStatus
          : httpStatusOf(error);
      ctx.body = shape ? shape.body(error, unknownRoute) : envelope ? envelopeErrorBody(error) : flatErrorBody(error);
      if (error.retryAfter !== undefined) ctx.set('Retry-After', String(error.retryAfter));
    }
  };
}

/**
 * The routers answer a method a path does not serve (405) or one served nowhere (501, e.g. TRACE)
 * themselves and set `Allow` (RFC 9110), which stays on the error answer; this turns their empty
 * answer into the error, thrown where the error middlewares (the OpenAI one included) shape it.
 * For the caller both are a method this route does not serve; a path no route serves is not found.
 */
export function methodNotAllowed(): Middleware {
  return async (ctx, next) => {
    await next();
    if ((ctx.status === 405 || ctx.status === 501) && ctx.body === undefined) {
      if (!ctx.response.get('Allow')) throw new NotFoundError('Route');
      throw new DomainError('method_not_allowed', 'Method not allowed on this route');
    }
  };
}
