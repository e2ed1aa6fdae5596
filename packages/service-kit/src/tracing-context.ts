import { ROOT_CONTEXT, trace, type Context, type ContextManager, type Span } from '@opentelemetry/api';
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

/** The key under which the API keeps a context's span (`trace.setSpan`): `Symbol.for`, shared by every API copy. */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

/**
 * What `trace.setSpan(ROOT_CONTEXT, span)` returns, in one small object: the API's context copies
 * a Map and makes three closures for each value it holds, for every request when every request is
 * traced. Reads the same to the API (`trace.getSpan`, the propagator); setting or deleting a value
 * gives the API's own context, as from the root.
 */
export class RootSpanContext implements Context {
  constructor(private readonly span: Span) {}

  getValue(key: symbol): unknown {
    return key === SPAN_KEY ? this.span : undefined;
  }

  setValue(key: symbol, value: unknown): Context {
    return trace.setSpan(ROOT_CONTEXT, this.span).setValue(key, value);
  }

  deleteValue(key: symbol): Context {
    return key === SPAN_KEY ? ROOT_CONTEXT : this;
  }
}
