import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { currentRequestId } from './context.js';
import {
  contextFromTraceparent,
  currentTraceId,
  currentTraceparent,
  endHttpServerSpan,
  runRequestInSpan,
  startSpan,
  startTracing,
  traced,
  tracingEnabled,
} from './tracing.js';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';

/**
 * Tracing on, as a service runs it with the production overlay's sampler (a ratio, following the
 * caller's decision). The ratio is 1 here so that a new trace is always kept: what a ratio keeps
 * of new traces is tracing-sdk.spec.ts's.
 */
describe('tracing with OTEL_EXPORTER_OTLP_ENDPOINT (the SDK)', () => {
  let stop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    // Nothing listens there: the spans' export is not what this suite checks.
    stop = await startTracing('unit', {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: 1,
    });
  });

  afterAll(() => stop?.());

  it('continues a kept trace: same trace id, sampled, the id in log lines', async () => {
    expect(tracingEnabled()).toBe(true);
    const parent = contextFromTraceparent(`00-${TRACE_ID}-b7ad6b7169203331-01`);
    const seen = await traced('continued', { parent }, async (span) => {
      expect(span?.isRecording()).toBe(true);
      return [currentTraceparent(), currentTraceId()];
    });
    expect(seen[0]).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
    expect(seen[1]).toBe(TRACE_ID);
  });

  it('follows a dropped trace: nothing recorded, the decision passed on, no trace id in logs', async () => {
    const parent = contextFromTraceparent(`00-${TRACE_ID}-b7ad6b7169203331-00`);
    const seen = await traced('dropped', { parent }, async (span) => {
      expect(span?.isRecording()).toBe(false);
      return [currentTraceparent(), currentTraceId()];
    });
    expect(seen[0]).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-00$`));
    expect(seen[1]).toBeUndefined();
  });

  it('runs a request in its span, which ends named by its route, with its attributes, failed from 500 on', async () => {
    const span = startSpan('GET')!;
    const inside = await runRequestInSpan({ requestId: 'req-1' }, span, async () => [
      currentRequestId(),
      currentTraceparent(),
    ]);
    expect(inside).toEqual(['req-1', `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`]);
    endHttpServerSpan(span, {
      method: 'GET',
      path: '/api/v1/agents/agt_1',
      requestId: 'req-1',
      status: 503,
      route: '/api/v1/agents/:agent_id',
    });
    // What the batch processor hands the exporter (the export itself: services/gateway/test/tracing.e2e.spec.ts).
    const recorded = span as unknown as ReadableSpan;
    expect(recorded.ended).toBe(true);
    expect(recorded.name).toBe('GET /api/v1/agents/:agent_id');
    expect(recorded.attributes).toEqual({
      'http.request.method': 'GET',
      'url.path': '/api/v1/agents/agt_1',
      'agentplatform.request.id': 'req-1',
      'http.response.status_code': 503,
      'http.route': '/api/v1/agents/:agent_id',
      'error.type': 'Error',
    });
    expect(recorded.status).toEqual({ code: SpanStatusCode.ERROR, message: 'HTTP 503' });
    expect(recorded.resource.attributes['service.name']).toBe('unit');
  });
});
