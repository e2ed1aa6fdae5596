import {
  contextFromTraceparent,
  currentTraceparent,
  injectTraceHeaders,
  startSpan,
  startTracing,
  traced,
  tracingEnabled,
} from './tracing.js';

describe('tracing without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('registers nothing, so no span is recorded and nothing is propagated', async () => {
    expect(await startTracing('test', {})).toBeUndefined();
    expect(tracingEnabled()).toBe(false);
    expect(startSpan('work')).toBeUndefined();
    expect(currentTraceparent()).toBeUndefined();
    // A traceparent from a message is not continued either: there is no trace to continue.
    expect(currentTraceparent(contextFromTraceparent('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'))).toBe(
      undefined,
    );
    const headers = { 'content-type': 'application/json' };
    expect(injectTraceHeaders(headers)).toEqual({ 'content-type': 'application/json' });
  });

  it('runs traced work as it is, its errors unchanged', async () => {
    const seen: unknown[] = [];
    await expect(
      traced('work', {}, async (span) => {
        seen.push(span);
        return 42;
      }),
    ).resolves.toBe(42);
    expect(seen).toEqual([undefined]);
    const failure = new Error('boom');
    await expect(traced('work', {}, () => Promise.reject(failure))).rejects.toBe(failure);
  });
});
