import { ROOT_CONTEXT, SpanKind, TraceFlags, isValidSpanId, isValidTraceId, trace } from '@opentelemetry/api';
import { SamplingDecision, type Sampler } from '@opentelemetry/sdk-trace';
import { PooledIdGenerator, samplerFor, samplesEveryRoot } from './tracing-sdk.js';

describe('PooledIdGenerator', () => {
  it('gives valid, distinct W3C ids across many refills of its pool', () => {
    const ids = new PooledIdGenerator();
    const traceIds = new Set<string>();
    const spanIds = new Set<string>();
    // 4 KiB of random bytes is 8,192 hex digits: this crosses the pool's end dozens of times,
    // at every offset a mix of 32- and 16-digit ids leaves.
    for (let i = 0; i < 5_000; i++) {
      const traceId = ids.generateTraceId();
      const spanId = ids.generateSpanId();
      expect(isValidTraceId(traceId)).toBe(true);
      expect(isValidSpanId(spanId)).toBe(true);
      traceIds.add(traceId);
      spanIds.add(spanId);
    }
    expect(traceIds.size).toBe(5_000);
    expect(spanIds.size).toBe(5_000);
  });

  it("hands a root span's two ids with their bytes, which later refills leave as they were", () => {
    const ids = new PooledIdGenerator();
    const taken: Array<{ traceId: string; spanId: string; bytes: Uint8Array; at: number }> = [];
    // Single ids between the pairs, so pairs start at every offset a refill can leave.
    for (let i = 0; i < 2_000; i++) {
      if (i % 3 === 0) ids.generateSpanId();
      ids.takeRootIds();
      taken.push({ traceId: ids.traceId, spanId: ids.spanId, bytes: ids.bytes, at: ids.bytesAt });
    }
    for (const { traceId, spanId, bytes, at } of taken) {
      expect(isValidTraceId(traceId)).toBe(true);
      expect(isValidSpanId(spanId)).toBe(true);
      expect(Buffer.from(bytes.subarray(at, at + 24)).toString('hex')).toBe(traceId + spanId);
    }
    expect(new Set(taken.map((t) => t.traceId)).size).toBe(2_000);
  });
});

describe('samplerFor (OTEL_TRACES_SAMPLER)', () => {
  const ids = new PooledIdGenerator();
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

  it('says which samplers keep every root span, the ones whose decision is then not asked for', () => {
    const names = [
      'always_on',
      'always_off',
      'traceidratio',
      'parentbased_always_on',
      'parentbased_always_off',
      'parentbased_traceidratio',
    ] as const;
    for (const name of names) {
      // A ratio of 0.5: a ratio sampler keeps some roots and drops others.
      expect([name, samplesEveryRoot(name)]).toEqual([name, share(samplerFor(name, 0.5)) === 1]);
    }
  });

  it('applies a bare ratio or always_off regardless of the caller', () => {
    expect(share(samplerFor('traceidratio', 0), sampledParent)).toBe(0);
    expect(share(samplerFor('always_off', 1), sampledParent)).toBe(0);
    expect(share(samplerFor('always_on', 0), unsampledParent)).toBe(1);
  });
});
