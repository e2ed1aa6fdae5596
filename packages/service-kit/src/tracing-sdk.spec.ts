import { isValidSpanId, isValidTraceId } from '@opentelemetry/api';
import { PooledIdGenerator } from './tracing-sdk.js';

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
});
