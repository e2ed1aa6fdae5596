import { randomFillSync } from 'node:crypto';
import { context, propagation, trace, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator, globalErrorHandler } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type IdGenerator,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { RequestContextManager } from './tracing-context.js';
import { EncodedSpans, LeanRootSpans, type EncodedBatch, type RootIdPool } from './tracing-lean.js';
import type { TracesSampler } from './tracing.js';

/**
 * Trace and span ids cut from a pool of random hex: one `randomFillSync` and one hex conversion per
 * 4 KiB (a few hundred ids) instead of the SDK's default, which builds every id from `Math.random`
 * into a fresh buffer and converts it on its own. Ids stay random (from the CSPRNG, better than
 * `Math.random`) and say nothing about the platform. An all-zero id is invalid in W3C trace
 * context; the chance of one is 2^-64 per span id and is not worth a test.
 * A lean root span takes its two ids together (`takeRootIds`) with their bytes, which its record
 * copies instead of decoding the hex again: each refill fills a new buffer, so the bytes of ids
 * already taken never change.
 */
export class PooledIdGenerator implements IdGenerator, RootIdPool {
  bytes = Buffer.allocUnsafeSlow(0);
  bytesAt = 0;
  traceId = '';
  spanId = '';
  private hex = '';
  private position = 0;

  generateTraceId(): string {
    return this.take(32);
  }

  generateSpanId(): string {
    return this.take(16);
  }

  takeRootIds(): void {
    if (this.position + 48 > this.hex.length) this.refill();
    const at = this.position;
    this.traceId = this.hex.slice(at, at + 32);
    this.spanId = this.hex.slice(at + 32, at + 48);
    this.bytesAt = at >>> 1;
    this.position = at + 48;
  }

  private take(length: number): string {
    if (this.position + length > this.hex.length) this.refill();
    const id = this.hex.slice(this.position, this.position + length);
    this.position += length;
    return id;
  }

  private refill(): void {
    this.bytes = randomFillSync(Buffer.allocUnsafeSlow(4096));
    this.hex = this.bytes.toString('hex');
    this.position = 0;
  }
}

/**
 * Export batches: up to 512 spans per request to the collector (the SDK's default: larger ones
 * made the gateway spend more in serialization and garbage collection, not less), sent as soon
 * as that many are waiting or 5 s after the first. The queue holds 8,192 spans (the default
 * 2,048), about a second of a busy gateway's spans, so a collector slow for a moment costs none.
 */
export const EXPORT_BATCH = { maxExportBatchSize: 512, maxQueueSize: 8192, scheduledDelayMillis: 5000 } as const;

/**
 * The lean root spans' batches (tracing-lean.ts): sent every second, or as soon as 256 KiB of
 * records (about 900 gateway spans) are waiting, on the next turn of the event loop; at most
 * 4 MiB wait (about 14,000 spans, several seconds of a busy gateway) while a collector is slow.
 */
export const LEAN_BATCH = { delayMillis: 1000, batchBytes: 256 * 1024, maxBytes: 4 * 1024 * 1024 } as const;

/**
 * The SDK's OTLP/HTTP protobuf export (the exporter's own: endpoint, OTEL_EXPORTER_OTLP_* headers,
 * compression and timeout, retries, concurrency limit) for batches already encoded.
 */
function encodedExport(url: string) {
  const delegate = createOtlpHttpExportDelegate(
    convertLegacyHttpOptions({ url }, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' }),
    {
      serializeRequest: (batch: EncodedBatch) => batch.body,
      deserializeResponse: (data: Uint8Array) => ProtobufTraceSerializer.deserializeResponse(data),
    },
    'otlp_http_span_exporter',
    { name: 'span', countItems: (batch: EncodedBatch) => batch.count },
    undefined,
  );
  return {
    send: (batch: EncodedBatch, done: (error?: Error) => void) =>
      delegate.export(batch, (result) =>
        done(result.error ?? (result.code === 0 ? undefined : new Error('export failed'))),
      ),
    shutdown: () => delegate.shutdown(),
  };
}

/**
 * The sampler OTEL_TRACES_SAMPLER names, as the SDK's specification defines them. The
 * `parentbased_` ones follow the caller's decision (the `traceparent`'s sampled flag) and apply
 * their own only to a trace's root, so a trace is never cut in the middle: a gateway sampling
 * 10% of requests leaves identity recording exactly the calls of those 10%.
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

/** Whether the sampler `name` records and samples every root span (a trace's first), whatever its id. */
export function samplesEveryRoot(name: TracesSampler): boolean {
  return name === 'always_on' || name === 'parentbased_always_on';
}

/**
 * The OpenTelemetry SDK, loaded only when tracing is on (tracing.ts imports this file lazily): a
 * process without an endpoint never pays its memory or start-up time.
 */
export function registerTracerProvider(options: {
  url: string;
  serviceName: string;
  sampler: TracesSampler;
  ratio: number;
}): {
  tracer: Tracer;
  rootSpans: LeanRootSpans;
  /** Whether the platform's context manager became the global one (false when another was registered first). */
  ownContextManager: boolean;
  shutdown: () => Promise<void>;
} {
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName });
  const idGenerator = new PooledIdGenerator();
  const sampler = samplerFor(options.sampler, options.ratio);
  const processor = new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: options.url }), ...EXPORT_BATCH });
  const provider = new TracerProvider({ resource, idGenerator, sampler, spanProcessors: [processor] });
  trace.setGlobalTracerProvider(provider);
  const ownContextManager = context.setGlobalContextManager(new RequestContextManager());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  // The lean root spans: the tracer's resource, scope, sampler and ids, their own batches.
  const leanExport = encodedExport(options.url);
  const encoded = new EncodedSpans(resource, SCOPE, leanExport.send, LEAN_BATCH, (error) => globalErrorHandler(error));
  return {
    tracer: provider.getTracer(SCOPE.name),
    rootSpans: new LeanRootSpans(encoded, resource, SCOPE, sampler, idGenerator, samplesEveryRoot(options.sampler)),
    ownContextManager,
    shutdown: async () => {
      await Promise.all([provider.shutdown(), encoded.shutdown()]);
      await leanExport.shutdown();
    },
  };
}

/** The instrumentation scope of the platform's spans. */
const SCOPE = { name: 'agentplatform' };
