import { ROOT_CONTEXT, SpanKind, TraceFlags, trace } from '@opentelemetry/api';
import { RandomIdGenerator, SamplingDecision, type Sampler } from '@opentelemetry/sdk-trace';
import { samplerFor } from './tracing-sdk.js';

describe('samplerFor (OTEL_TRACES_SAMPLER)', () => {
  const ids = new RandomIdGenerator();
  const sampledParent = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: ids.generateTraceId(),
    spanId: ids.generateSpanId(),
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  });
  const unsampledParent = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: ids.generateTraceId(),
    spanId: ids.generateSpanId(),
    traceFlags: TraceFlags.NONE,
    isRemote: true,
  });
  const decide = (sampler: Sampler, parent = ROOT_CONTEXT) =>
    sampler.shouldSample(parent, ids.generateTraceId(), 'GET', SpanKind.SERVER, {}, []).decision;
  const share = (sampler: Sampler, parent = ROOT_CONTEXT) => {
    let sampled = 0;
    for (let i = 0; i < 2_000; i++) if (decide(sampler, parent) === SamplingDecision.RECORD_AND_SAMPLED) sampled++;
    return sampled / 2_000;
  };

  it('records every trace by default', () => {
    expect(share(samplerFor('parentbased_always_on', 1))).toBe(1);
  });

  it('keeps about the ratio of new traces, and follows the caller in a trace already decided', () => {
    const sampler = samplerFor('parentbased_traceidratio', 0.25);
    expect(share(sampler)).toBeGreaterThan(0.18);
    expect(share(sampler)).toBeLessThan(0.32);
    // A call inside a trace the gateway kept is recorded, one it dropped is not: traces stay whole.
    expect(share(sampler, sampledParent)).toBe(1);
    expect(share(sampler, unsampledParent)).toBe(0);
  });

  it('applies a bare ratio or always_off regardless of the caller', () => {
    expect(share(samplerFor('traceidratio', 0), sampledParent)).toBe(0);
    expect(share(samplerFor('always_off', 1), sampledParent)).toBe(0);
    expect(share(samplerFor('always_on', 0), unsampledParent)).toBe(1);
  });
});
