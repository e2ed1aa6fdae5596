import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  InMemorySpanExporter,
  SamplingDecision,
  SimpleSpanProcessor,
  TracerProvider,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { EncodedSpans, LeanRootSpans, LeanSpan, processorSink, type EncodedBatch } from './tracing-lean.js';
import { PooledIdGenerator, samplerFor } from './tracing-sdk.js';
import { endHttpServerSpan } from './tracing.js';

/**
 * The lean root span against the SDK's own span: recorded through the same processor and
 * exporter, the exported record must be the same for the same calls, and its children must
 * continue its trace.
 */
describe('LeanRootSpans', () => {
  const scope = { name: 'agentplatform' };
  const resource = resourceFromAttributes({ 'service.name': 'gateway' });
  const ids = new PooledIdGenerator();

  function setup(sampler = samplerFor('parentbased_always_on', 1)) {
    const exporter = new InMemorySpanExporter();
    const processor = new SimpleSpanProcessor({ exporter });
    const provider = new TracerProvider({ resource, idGenerator: ids, sampler, spanProcessors: [processor] });
    return {
      // The simple processor exports asynchronously: the spans ended so far, once exported.
      finished: async () => {
        await processor.forceFlush();
        return exporter.getFinishedSpans();
      },
      tracer: provider.getTracer(scope.name),
      roots: new LeanRootSpans(processorSink(processor), resource, scope, sampler, ids),
    };
  }

  /** What a request's middleware does to its span, on either kind of span. */
  function request(span: ReturnType<LeanRootSpans['start']>) {
    span.setAttributes({ 'http.request.method': 'GET', 'url.path': '/api/v1/auth/me', ignored: undefined });
    span.updateName('GET /api/v1/auth/me');
    span.setAttribute('http.route', '/api/v1/auth/me');
    span.setAttribute('http.response.status_code', 500);
    span.addEvent('retry', { attempt: 1 });
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'HTTP 500' });
    span.end();
    // After end nothing changes, and a second end exports nothing more.
    span.setAttribute('late', true);
    span.updateName('renamed');
    span.end();
  }

  function exported(span: ReadableSpan) {
    return {
      name: span.name,
      kind: span.kind,
      parent: span.parentSpanContext?.spanId,
      attributes: span.attributes,
      status: span.status,
      events: span.events.map((e) => ({ name: e.name, attributes: e.attributes })),
      links: span.links,
      resource: span.resource.attributes,
      scope: span.instrumentationScope.name,
      counts: [span.droppedAttributesCount, span.droppedEventsCount, span.droppedLinksCount],
      ended: span.ended,
      sampled: span.spanContext().traceFlags,
    };
  }

  it('exports the same record as the SDK span for the same calls', async () => {
    const { finished, tracer, roots } = setup();
    const before = Date.now();
    request(roots.start('GET', SpanKind.SERVER));
    request(tracer.startSpan('GET', { kind: SpanKind.SERVER }, ROOT_CONTEXT));
    const spans = await finished();
    expect(spans).toHaveLength(2);
    const [lean, sdk] = spans;
    expect(exported(lean!)).toEqual(exported(sdk!));
    expect(exported(lean!)).toMatchObject({
      name: 'GET /api/v1/auth/me',
      kind: SpanKind.SERVER,
      parent: undefined,
      attributes: { 'http.route': '/api/v1/auth/me', 'http.response.status_code': 500 },
      status: { code: SpanStatusCode.ERROR, message: 'HTTP 500' },
      events: [{ name: 'retry', attributes: { attempt: 1 } }],
      sampled: TraceFlags.SAMPLED,
    });
    // Times in the epoch, start before end, duration their difference.
    const ms = (t: [number, number]) => t[0] * 1000 + t[1] / 1e6;
    expect(ms(lean!.startTime)).toBeGreaterThanOrEqual(before - 1);
    expect(ms(lean!.endTime)).toBeGreaterThanOrEqual(ms(lean!.startTime));
    expect(ms(lean!.duration)).toBeCloseTo(ms(lean!.endTime) - ms(lean!.startTime), 3);
  });

  it("ends an HTTP request's span with the same attributes as an SDK span's", async () => {
    const { finished, tracer, roots } = setup();
    for (const span of [roots.start('GET', SpanKind.SERVER), tracer.startSpan('GET', { kind: SpanKind.SERVER })])
      endHttpServerSpan(span, 'GET', '/api/v1/agents/a1', 'r-1', 502, '/api/v1/agents/:id');
    const [lean, sdk] = await finished();
    expect(exported(lean!)).toEqual(exported(sdk!));
    expect(exported(lean!)).toMatchObject({
      name: 'GET /api/v1/agents/:id',
      attributes: {
        'http.request.method': 'GET',
        'url.path': '/api/v1/agents/a1',
        'agentplatform.request.id': 'r-1',
        'http.response.status_code': 502,
        'http.route': '/api/v1/agents/:id',
        'error.type': 'Error',
      },
      status: { code: SpanStatusCode.ERROR, message: 'HTTP 502' },
    });
  });

  it("records an exception's type and message, never its stack (it may quote inputs)", async () => {
    const { finished, roots } = setup();
    const span = roots.start('GET', SpanKind.SERVER);
    span.recordException(new TypeError('no such thing'));
    span.end();
    const [exported] = await finished();
    expect(exported!.events).toEqual([
      expect.objectContaining({
        name: 'exception',
        attributes: { 'exception.type': 'TypeError', 'exception.message': 'no such thing' },
      }),
    ]);
  });

  it('starts a new trace whose children continue it', async () => {
    const { finished, tracer, roots } = setup();
    const root = roots.start('GET', SpanKind.SERVER);
    const child = tracer.startSpan('/identity/GetMe', { kind: SpanKind.CLIENT }, trace.setSpan(ROOT_CONTEXT, root));
    child.end();
    root.end();
    const [childSpan, rootSpan] = await finished();
    expect(childSpan!.spanContext().traceId).toBe(root.spanContext().traceId);
    expect(childSpan!.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(rootSpan!.spanContext()).toEqual(root.spanContext());
    // Two roots, two traces.
    expect(roots.start('GET', SpanKind.SERVER).spanContext().traceId).not.toBe(root.spanContext().traceId);
  });

  it('follows the sampler: an unsampled request records nothing and says so to its children', async () => {
    const { finished, tracer, roots } = setup(samplerFor('parentbased_traceidratio', 0));
    const root = roots.start('GET', SpanKind.SERVER);
    expect(root.isRecording()).toBe(false);
    expect(root.spanContext().traceFlags).toBe(TraceFlags.NONE);
    root.setAttribute('http.route', '/x');
    root.end();
    const child = tracer.startSpan('child', {}, trace.setSpan(ROOT_CONTEXT, root));
    child.end();
    expect(child.spanContext().traceId).toBe(root.spanContext().traceId);
    expect(child.spanContext().traceFlags).toBe(TraceFlags.NONE);
    expect(await finished()).toEqual([]);
  });

  describe('EncodedSpans (records written at end, sent in batches)', () => {
    function encoded(options = { delayMillis: 60_000, batchBytes: 1 << 20, maxBytes: 1 << 22 }) {
      const sent: EncodedBatch[] = [];
      const errors: string[] = [];
      const sink = new EncodedSpans(
        resource,
        scope,
        (batch, done) => {
          sent.push(batch);
          done();
        },
        options,
        (error) => errors.push(error.message),
      );
      return {
        sink,
        sent,
        errors,
        roots: new LeanRootSpans(sink, resource, scope, samplerFor('always_on', 1), ids, true),
      };
    }

    afterEach(() => jest.useRealTimers());

    it("writes the same bytes as the SDK's OTLP serializer for the same spans", async () => {
      const { sink, sent, roots } = encoded();
      const spans: LeanSpan[] = [];
      for (const name of ['GET', 'POST /api/v1/agents/:id/chat', 'naïve ☃ ünïcode']) {
        const span = roots.start(name, SpanKind.SERVER) as LeanSpan;
        span.setAttributes({
          'url.path': `/api/v1/${'x'.repeat(300)}`,
          'http.response.status_code': 201,
          big: 2 ** 40,
          negative: -3,
          ratio: 0.25,
          ok: true,
          tags: ['a', 'b'],
        });
        span.addEvent('retry', { attempt: 2 });
        span.addLink({ context: roots.start('linked', SpanKind.INTERNAL).spanContext(), attributes: { why: 'batch' } });
        if (name === 'GET') span.setStatus({ code: SpanStatusCode.ERROR, message: 'HTTP 503' });
        span.end();
        spans.push(span);
      }
      await sink.flush();
      expect(sent).toHaveLength(1);
      expect(sent[0]!.count).toBe(3);
      const expected = ProtobufTraceSerializer.serializeRequest(spans)!;
      expect(Buffer.from(sent[0]!.body).equals(Buffer.from(expected))).toBe(true);
      // Sent once: the next flush has nothing to send.
      await sink.flush();
      expect(sent).toHaveLength(1);
    });

    it("writes an HTTP request's span from its values with the bytes of the generic calls", async () => {
      const { sink, sent, roots } = encoded();
      const cases: Array<[string, string, string, number, string | undefined]> = [
        ['GET', '/api/v1/auth/me', '0f8fad5b-d9cb-469f-a165-70867728950e', 200, '/api/v1/auth/me'],
        ['POST', '/api/v1/agents/a1/chat', 'r-1', 201, '/api/v1/agents/:id/chat'],
        ['GET', '/nowhere', 'r-2', 404, undefined],
        // Lengths past one byte, and characters past ASCII: written the general way.
        ['GET', `/api/v1/${'x'.repeat(300)}`, 'r'.repeat(128), 200, `/api/v1/${'y'.repeat(120)}`],
        ['GET', '/api/v1/naïve', 'r-3', 200, '/api/v1/ünïcode'],
        // A record of 16 KiB or more (a length of three bytes), and a status under 128 (one byte).
        ['GET', `/${'z'.repeat(17_000)}`, 'r-6', 99, undefined],
        // A failed request (a status message and error.type), and one with an attribute set before.
        ['GET', '/api/v1/agents', 'r-4', 503, '/api/v1/agents'],
        ['GET', '/api/v1/agents', 'r-5', 200, '/api/v1/agents'],
      ];
      const spans = cases.map(([method, path, requestId, status, route], i) => {
        const span = roots.start(method, SpanKind.SERVER) as LeanSpan;
        if (i === cases.length - 1) span.setAttribute('tenant', 't1');
        span.endHttpRequest(method, path, requestId, status, route);
        return span;
      });
      await sink.flush();
      // What the generic calls leave on a span written from its values: its name and attributes.
      for (const [i, [method, path, requestId, status, route]] of cases.entries()) {
        const span = spans[i]!;
        if (span.attributePairs.length > 0) continue;
        span.name = route === undefined ? method : `${method} ${route}`;
        span.attributePairs = ['http.request.method', method, 'url.path', path];
        span.attributePairs.push('agentplatform.request.id', requestId, 'http.response.status_code', status);
        if (route !== undefined) span.attributePairs.push('http.route', route);
      }
      const failed = spans[cases.findIndex(([, , requestId]) => requestId === 'r-4')]!;
      expect(failed.status).toEqual({ code: SpanStatusCode.ERROR, message: 'HTTP 503' });
      expect(failed.attributes['error.type']).toBe('Error');
      const expected = ProtobufTraceSerializer.serializeRequest(spans)!;
      expect(sent.map((b) => b.count)).toEqual([cases.length]);
      expect(Buffer.from(sent[0]!.body).equals(Buffer.from(expected))).toBe(true);
      // Ended once: a second end writes nothing.
      spans[0]!.endHttpRequest('GET', '/again', 'r', 200, undefined);
      spans[0]!.end();
      await sink.flush();
      expect(sent).toHaveLength(1);
    });

    it('sends on its timer, and at once (off the request path) when a batch is full', async () => {
      jest.useFakeTimers();
      const { sink, sent, roots } = encoded({ delayMillis: 1_000, batchBytes: 1_000, maxBytes: 1 << 22 });
      roots.start('GET', SpanKind.SERVER).end();
      expect(sent).toHaveLength(0);
      jest.advanceTimersByTime(1_000);
      expect(sent.map((b) => b.count)).toEqual([1]);
      for (let i = 0; i < 20; i++) roots.start('GET', SpanKind.SERVER).end();
      // Not inside end(): the batch leaves on the next turn of the event loop.
      expect(sent).toHaveLength(1);
      jest.runOnlyPendingTimers();
      expect(sent.map((b) => b.count)).toEqual([1, 20]);
      await sink.shutdown();
    });

    it('drops and reports spans beyond its bound, and sends no unsampled span', async () => {
      const { sink, sent, errors, roots } = encoded({ delayMillis: 60_000, batchBytes: 1 << 20, maxBytes: 500 });
      for (let i = 0; i < 10; i++) roots.start('GET', SpanKind.SERVER).end();
      // A sampler may record a span without sampling it: such a span is never exported.
      const recordOnly = { shouldSample: () => ({ decision: SamplingDecision.RECORD }), toString: () => 'record' };
      const quiet = new LeanRootSpans(sink, resource, scope, recordOnly, ids).start('GET', SpanKind.SERVER);
      expect(quiet.isRecording()).toBe(true);
      quiet.end();
      await sink.shutdown();
      const kept = sent[0]!.count;
      expect(kept).toBeGreaterThan(0);
      expect(kept).toBeLessThan(10);
      expect(errors).toEqual([`dropped ${10 - kept} spans: 500 bytes already waiting`]);
    });
  });
});
