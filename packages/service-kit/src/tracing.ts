import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  propagation,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapGetter,
  type TimeInput,
  type Tracer,
} from '@opentelemetry/api';
import {
  activeTraceContext,
  runWithContext,
  runWithRequestAndTrace,
  runWithTraceContext,
  type RequestContext,
} from './context.js';
import type { Logger } from './logger.js';
import { RootSpanContext } from './tracing-context.js';
import { setHttpRequestAttributes } from './tracing-http.js';
import type { LeanRootSpans, LeanSpan } from './tracing-lean.js';

export { SpanKind, type Span } from '@opentelemetry/api';

export interface TracingConfig {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_SERVICE_NAME?: string;
  /** The SDK's standard sampler names (config.ts); default `parentbased_always_on`, every request. */
  OTEL_TRACES_SAMPLER?: TracesSampler;
  /** The ratio of the `traceidratio` samplers (default 1). */
  OTEL_TRACES_SAMPLER_ARG?: number;
}

export type TracesSampler =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';

/** The W3C trace context header, in HTTP requests, gRPC metadata and Kafka message headers. */
export const TRACEPARENT = 'traceparent';

/**
 * Set once tracing is started. Every helper here checks it first, so with tracing off (no
 * endpoint) the hot path pays a boolean test: no span objects, no context switches.
 */
let tracer: Tracer | undefined;
/** Root spans recorded without the SDK's general span (tracing-lean.ts); set with `tracer`. */
let rootSpans: LeanRootSpans | undefined;
/**
 * Whether the global context manager is the platform's (tracing-context.ts), so the active trace
 * context can be read and set in the request context's store directly, without the API's
 * indirection (a global lookup, an argument array and a closure per switch). False when another
 * manager was registered first: everything then goes through the API.
 */
let ownContextManager = false;

/** Whether spans are recorded and exported (OTEL_EXPORTER_OTLP_ENDPOINT is set). */
export function tracingEnabled(): boolean {
  return tracer !== undefined;
}

/**
 * Registers the global tracer provider, context manager and W3C propagator when an endpoint is
 * configured, exporting in batches over OTLP/HTTP (protobuf). Without one nothing is registered (the
 * SDK is not even loaded) and the OpenTelemetry API stays its no-op. Returns the function that
 * flushes and stops it.
 */
export async function startTracing(
  serviceName: string,
  config: TracingConfig,
  logger?: Logger,
): Promise<(() => Promise<void>) | undefined> {
  const endpoint = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint || tracer) return undefined;
  const name = config.OTEL_SERVICE_NAME ?? serviceName;
  const { registerTracerProvider } = await import('./tracing-sdk.js');
  const sampler = config.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on';
  const ratio = config.OTEL_TRACES_SAMPLER_ARG ?? 1;
  const provider = registerTracerProvider({
    url: `${endpoint.replace(/\/+$/, '')}/v1/traces`,
    serviceName: name,
    sampler,
    ratio,
  });
  tracer = provider.tracer;
  rootSpans = provider.rootSpans;
  ownContextManager = provider.ownContextManager;
  const sampling = sampler.endsWith('traceidratio') ? { sampler, sampler_arg: ratio } : { sampler };
  logger?.info({ endpoint, service_name: name, ...sampling }, 'tracing on (OTLP/HTTP protobuf)');
  return async () => {
    await provider.shutdown().catch((error: unknown) => logger?.warn({ err: error }, 'cannot flush spans'));
  };
}

const recordGetter: TextMapGetter<Record<string, unknown>> = {
  get: (carrier, key) => {
    const value = carrier[key];
    if (typeof value === 'string') return value;
    if (Buffer.isBuffer(value)) return value.toString();
    return Array.isArray(value) && typeof value[0] === 'string' ? value[0] : undefined;
  },
  keys: (carrier) => Object.keys(carrier),
};

/** The context a W3C `traceparent` (from a header, metadata or a stored record) continues. */
export function contextFromTraceparent(traceparent: string | undefined, base: Context = ROOT_CONTEXT): Context {
  if (!tracer || !traceparent) return base;
  return propagation.extract(base, { [TRACEPARENT]: traceparent }, recordGetter);
}

/** The W3C `traceparent` of the active span (or of `ctx`), to store or send; undefined when tracing is off. */
export function currentTraceparent(ctx?: Context): string | undefined {
  if (!tracer) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(ctx ?? activeContext(), carrier);
  return carrier[TRACEPARENT];
}

/** Adds the active trace context (`traceparent`, `tracestate`) to outgoing HTTP headers, unless present. */
export function injectTraceHeaders(headers: Record<string, string>, ctx?: Context): Record<string, string> {
  if (!tracer) return headers;
  const present = Object.keys(headers).some((name) => name.toLowerCase() === TRACEPARENT);
  if (!present) propagation.inject(ctx ?? activeContext(), headers);
  return headers;
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent; default: the active context. */
  parent?: Context;
  startTime?: TimeInput;
}

/**
 * Starts a span that is not made active (ended by the caller); undefined when tracing is off.
 * For spans whose work is not one function call (a Kafka message's way, an HTTP request).
 */
export function startSpan(name: string, options: SpanOptions = {}): Span | undefined {
  if (!tracer) return undefined;
  return tracer.startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, startTime: options.startTime },
    options.parent ?? activeContext(),
  );
}

/**
 * Starts the root span of a new trace, not made active (ended by the caller); undefined when
 * tracing is off. Recorded by the lean path (tracing-lean.ts): sampled, batched and exported as
 * every other span, at a fraction of the SDK span's cost. For the gateway's span of each request.
 */
export function startRootSpan(
  name: string,
  kind: SpanKind = SpanKind.SERVER,
  attributes?: Attributes,
): Span | undefined {
  return rootSpans?.start(name, kind, attributes);
}

/** The active trace context (`context.active()`). */
function activeContext(): Context {
  return ownContextManager ? ((activeTraceContext() as Context | undefined) ?? ROOT_CONTEXT) : context.active();
}

/** The context in which `span` is the active span (the parent of what runs inside it). */
export function contextWithSpan(span: Span | undefined, base: Context = activeContext()): Context {
  if (!span) return base;
  // A trace's root (every request at the gateway): one small object instead of the API's Map and closures.
  return base === ROOT_CONTEXT ? new RootSpanContext(span) : trace.setSpan(base, span);
}

/**
 * Runs `fn` as a new request (`runWithContext`) with `span`, the root of a new trace
 * (`startRootSpan`), as its active span: the request context and the span's context set in one
 * switch, not two (the gateway's every request when tracing is on).
 */
export function runRequestInRootSpan<T>(request: RequestContext, span: Span, fn: () => T): T {
  const spanContext = contextWithSpan(span, ROOT_CONTEXT);
  if (ownContextManager) return runWithRequestAndTrace(request, spanContext, fn);
  return runWithContext(request, () => context.with(spanContext, fn));
}

/** Runs `fn` with `ctx` as the active trace context. */
export function runInTraceContext<T>(ctx: Context, fn: () => T): T {
  if (!tracer) return fn();
  return ownContextManager ? runWithTraceContext(ctx, fn) : context.with(ctx, fn);
}

/**
 * Ends the span of an HTTP request served (the gateway's root span of each request) with the
 * request's attributes: `http.request.method`, `url.path`, `agentplatform.request.id`,
 * `http.response.status_code` and, when a route matched, `http.route`, with the span named
 * `<method> <route>` (never the raw path: ids in paths would make every name unique); failed from
 * status 500 on. A lean root span writes its record from these values at once (tracing-lean.ts).
 */
export function endHttpServerSpan(
  span: Span,
  method: string,
  path: string,
  requestId: string,
  status: number,
  route: string | undefined,
): void {
  const lean = span as Partial<Pick<LeanSpan, 'endHttpRequest'>>;
  if (lean.endHttpRequest) return lean.endHttpRequest(method, path, requestId, status, route);
  // Another kind of span (a test's, or one not recorded): the same attributes, one by one.
  setHttpRequestAttributes(span, method, path, requestId, status, route);
  span.end();
}

/** Marks a span failed with the error's message (never its stack: it may quote inputs). */
export function failSpan(span: Span | undefined, error: unknown): void {
  if (!span) return;
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  if (error instanceof Error) span.setAttribute('error.type', error.name);
}

/**
 * Runs `fn` inside a new active span, ending it when `fn` settles and marking it failed when it
 * throws. With tracing off it is just `fn()` (not even another promise).
 */
export function traced<T>(name: string, options: SpanOptions, fn: (span: Span | undefined) => Promise<T>): Promise<T> {
  const span = startSpan(name, options);
  return span ? inSpan(span, options.parent, fn) : fn(undefined);
}

async function inSpan<T>(span: Span, parent: Context | undefined, fn: (span: Span) => Promise<T>): Promise<T> {
  try {
    return await runInTraceContext(contextWithSpan(span, parent ?? activeContext()), () => fn(span));
  } catch (error) {
    failSpan(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** The trace id of the active span, for log lines; undefined when tracing is off or outside a span. */
export function currentTraceId(): string | undefined {
  if (!tracer) return undefined;
  return trace.getSpanContext(activeContext())?.traceId;
}
