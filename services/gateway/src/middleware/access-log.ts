import type { Middleware } from 'koa';
import type { Logger } from '@agentplatform/service-kit';

/** One line per request, after the response is decided. Query strings are left out (they may hold tokens). */
export function accessLog(logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const level = ctx.status >= 500 ? 'error' : 'info';
      logger[level](
        { method: ctx.method, path: ctx.path, status: ctx.status, duration_ms: Math.round(durationMs * 100) / 100 },
        'request',
      );
    }
  };
}
