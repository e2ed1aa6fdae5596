import { context, propagation, trace, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { RequestContextManager } from './tracing-context.js';

/** The sampler names of OTEL_TRACES_SAMPLER that the platform accepts (config.ts). */
export type TracesSampler =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';

/**
 * The sampler OTEL_TRACES_SAMPLER names, as the SDK's specification defines them. The
 * `parentbased_` ones follow the caller's decision (the `traceparent`'s sampled flag) and apply
 * their own only to a trace's root, so a trace is never cut in the middle: a gateway sampling
 * 10% of requests leaves identity recording exactly the calls of those 10%. Built here from the
 * parsed config rather than by the SDK from the environment: config.ts is the one reader of env.
 */
export function samplerFor(name: TracesSampler, ratio: number): Sampler {
  const root = (kind: string): Sampler =>
    kind === 'always_off'
      ? new AlwaysOffSampler()
      : kind === 'traceidratio'
        ? new TraceIdRatioBasedSampler(ratio)
        : new AlwaysOnSampler();
  return name.startsWith('parentbased_')
    ? new ParentBasedSampler({ root: root(name.slice('parentbased_'.length)) })
    : root(name);
}

/**
 * The OpenTelemetry SDK, loaded only when tracing is on (tracing.ts imports this file lazily): a
 * process without an endpoint never pays its memory or start-up time. The SDK's batch processor
 * with its defaults (up to 512 spans a request, every 5 s, 2,048 queued) and its OTLP/HTTP
 * protobuf exporter (which also reads the OTEL_EXPORTER_OTLP_* headers, timeout and compression).
 */
export function registerTracerProvider(options: { url: string; serviceName: string; sampler: Sampler }): {
  tracer: Tracer;
  /** Whether the platform's context manager became the global one (false when another was registered first). */
  ownContextManager: boolean;
  shutdown: () => Promise<void>;
} {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName }),
    sampler: options.sampler,
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: options.url }) })],
  });
  trace.setGlobalTracerProvider(provider);
  const ownContextManager = context.setGlobalContextManager(new RequestContextManager());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return { tracer: provider.getTracer('agentplatform'), ownContextManager, shutdown: () => provider.shutdown() };
}
