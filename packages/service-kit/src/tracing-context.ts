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

  /**
   * Binds functions to `context`; anything else (the platform binds no event emitters) as it is. A
   * proxy keeps the function's own type, name and properties.
   */
  bind<T>(context: Context, target: T): T {
    if (!isFunction(target)) return target;
    return new Proxy(target, {
      apply: (fn, thisArg, args) => runWithTraceContext(context, () => Reflect.apply(fn, thisArg, args)),
    });
  }

  enable(): this {
    return this;
  }

  disable(): this {
    return this;
  }
}

function isFunction<T>(value: T): value is T & ((...args: unknown[]) => unknown) {
  return typeof value === 'function';
}
