import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
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
// pino's type, not logger.ts's: the logger reads the trace id from here, and must stay the only way round.
import type { Logger } from 'pino';
import {
  activeTraceContext,
  runWithContext,
  runWithRequestAndTrace,
  runWithTraceContext,
  type RequestContext,
} from './context.js';
import type { TracesSampler } from './tracing-sdk.js';

export { ROOT_CONTEXT, SpanKind, type Span } from '@opentelemetry/api';
export type { TracesSampler } from './tracing-sdk.js';

export interface TracingConfig {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_SERVICE_NAME?: string;
  /** The SDK's standard sampler names (config.ts); default `parentbased_always_on`, every request. */
  OTEL_TRACES_SAMPLER?: TracesSampler;
  /** The ratio of the `traceidratio` samplers (default 1). */
  OTEL_TRACES_SAMPLER_ARG?: number;
}

/** The W3C trace context header, in HTTP requests, gRPC metadata and Kafka message headers. */
export const TRACEPARENT = 'traceparent';

/**
 * Set once tracing is started. Every helper here checks it first, so with tracing off (no
 * endpoint) the hot path pays a boolean test: no span objects, no context switches.
 */
let tracer: Tracer | undefined;
/**
 * Whether the global context manager is the platform's (tracing-context.ts), so the active trace
 * context can be read and set in the request context's store directly, and a traced request's
 * request id and span set in one switch. False when another manager was registered first:
 * everything then goes through the API.
 */
let ownContextManager = false;

/** Whether spans are recorded and exported (OTEL_EXPORTER_OTLP_ENDPOINT is set). */
export function tracingEnabled(): boolean {
  return tracer !== undefined;
}

/**
 * Registers the SDK's tracer provider, the platform's context manager and the W3C propagator when
 * an endpoint is configured, exporting in batches over OTLP/HTTP (protobuf). Without one nothing
 * is registered (the SDK is not even loaded) and the OpenTelemetry API stays its no-op. Returns
 * the function that flushes and stops it.
 */
export async function startTracing(
  serviceName: string,
  config: TracingConfig,
  logger?: Logger,
): Promise<(() => Promise<void>) | undefined> {
  const endpoint = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint || tracer) return undefined;
  const name = config.OTEL_SERVICE_NAME ?? serviceName;
  const { registerTracerProvider, samplerFor } = await import('./tracing-sdk.js');
  const sampler = config.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on';
  const ratio = config.OTEL_TRACES_SAMPLER_ARG ?? 1;
  const provider = registerTracerProvider({
    url: `${endpoint.replace(/\/+$/, '')}/v1/traces`,
    serviceName: name,
    sampler: samplerFor(sampler, ratio),
  });
  tracer = provider.tracer;
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
 * For spans whose work is not one function call (a Kafka message's way, an HTTP request). A
 * trace the sampler dropped still gets a (non-recording) span: its context carries the decision
 * on, so the calls it makes are dropped too rather than starting traces of their own.
 */
export function startSpan(name: string, options: SpanOptions = {}): Span | undefined {
  if (!tracer) return undefined;
  return tracer.startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, startTime: options.startTime },
    options.parent ?? activeContext(),
  );
}

/** The active trace context (`context.active()`). */
function activeContext(): Context {
  return ownContextManager ? ((activeTraceContext() as Context | undefined) ?? ROOT_CONTEXT) : context.active();
}

/** The context in which `span` is the active span (the parent of what runs inside it). */
export function contextWithSpan(span: Span | undefined, base: Context = activeContext()): Context {
  return span ? trace.setSpan(base, span) : base;
}

/** Runs `fn` with `ctx` as the active trace context. */
export function runInTraceContext<T>(ctx: Context, fn: () => T): T {
  if (!tracer) return fn();
  return ownContextManager ? runWithTraceContext(ctx, fn) : context.with(ctx, fn);
}

/**
 * Runs `fn` as a new request (`runWithContext`) with `span`, the root of a new trace, as its
 * active span: both set in one switch of the request context's store when the platform's context
 * manager is the global one (the gateway's every request when tracing is on).
 */
export function runRequestInSpan<T>(request: RequestContext, span: Span, fn: () => T): T {
  const spanContext = trace.setSpan(ROOT_CONTEXT, span);
  if (ownContextManager) return runWithRequestAndTrace(request, spanContext, fn);
  return runWithContext(request, () => context.with(spanContext, fn));
}

/** The attributes of an HTTP server request's span. */
export const HTTP_REQUEST = {
  method: 'http.request.method',
  path: 'url.path',
  // The request id (X-Request-Id) finds a request's trace from a log line or a support ticket.
  requestId: 'agentplatform.request.id',
  status: 'http.response.status_code',
  route: 'http.route',
} as const;

/**
 * Ends the span of an HTTP request served (the gateway's root span of each request) with the
 * request's attributes, named `<method> <route>` when a route matched (never the raw path: ids in
 * paths would make every name unique); failed from status 500 on. Nothing is set on a span the
 * sampler dropped.
 */
export function endHttpServerSpan(
  span: Span,
  request: { method: string; path: string; requestId: string; status: number; route: string | undefined },
): void {
  if (span.isRecording()) {
    const { method, route, status } = request;
    span.setAttributes({
      [HTTP_REQUEST.method]: method,
      [HTTP_REQUEST.path]: request.path,
      [HTTP_REQUEST.requestId]: request.requestId,
      [HTTP_REQUEST.status]: status,
    });
    if (route !== undefined) {
      span.updateName(`${method} ${route}`);
      span.setAttribute(HTTP_REQUEST.route, route);
    }
    if (status >= 500) failSpan(span, new Error(`HTTP ${status}`));
  }
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

/** The trace id of the active span, for log lines; undefined when tracing is off, outside a span or in a dropped trace. */
export function currentTraceId(): string | undefined {
  if (!tracer) return undefined;
  const spanContext = trace.getSpanContext(activeContext());
  return spanContext && spanContext.traceFlags & TraceFlags.SAMPLED ? spanContext.traceId : undefined;
}
