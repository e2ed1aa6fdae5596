import { ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';
import { activeTraceContext, runWithTraceContext } from './context.js';

/**
 * OpenTelemetry's context manager on the request context's own AsyncLocalStorage (context.ts)
 * instead of a second one (`AsyncLocalStorageContextManager`): with two stores every promise of
 * every request carries both, which cost the gateway more than its span did. The active trace
 * context and the request id are set independently, as with two stores.
 */
export class RequestContextManager implements ContextManager {
  active(): Context {
    return (activeTraceContext() as Context | undefined) ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return runWithTraceContext(context, () => fn.apply(thisArg, args));
  }

  /** Binds functions to `context`; anything else (the platform binds no event emitters) as it is. */
  bind<T>(context: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const fn = target as unknown as (...args: unknown[]) => unknown;
    return function (this: unknown, ...args: unknown[]) {
      return runWithTraceContext(context, () => fn.apply(this, args));
    } as unknown as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    return this;
  }
}
