import { ROOT_CONTEXT, createContextKey } from '@opentelemetry/api';
import { currentRequestId, runWithContext, runWithRequestAndTrace } from './context.js';
import { RequestContextManager } from './tracing-context.js';

describe('RequestContextManager (trace context in the request context store)', () => {
  const manager = new RequestContextManager();
  const key = createContextKey('span');
  const traceA = ROOT_CONTEXT.setValue(key, 'a');
  const traceB = ROOT_CONTEXT.setValue(key, 'b');
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it('is the root context outside any', () => {
    expect(manager.active()).toBe(ROOT_CONTEXT);
  });

  it('follows the work it was set for across awaits, nested and restored', async () => {
    const seen: unknown[] = [];
    await manager.with(traceA, async () => {
      await tick();
      seen.push(manager.active().getValue(key));
      await manager.with(traceB, async () => {
        await tick();
        seen.push(manager.active().getValue(key));
      });
      seen.push(manager.active().getValue(key));
    });
    seen.push(manager.active().getValue(key));
    expect(seen).toEqual(['a', 'b', 'a', undefined]);
  });

  it('keeps concurrent requests apart', async () => {
    const run = (trace: typeof traceA, requestId: string) =>
      runWithContext({ requestId }, () =>
        manager.with(trace, async () => {
          await tick();
          return [currentRequestId(), manager.active().getValue(key)];
        }),
      );
    expect(await Promise.all([run(traceA, 'r1'), run(traceB, 'r2')])).toEqual([
      ['r1', 'a'],
      ['r2', 'b'],
    ]);
  });

  it('sets a new request and its trace context in one switch (a traced request at the gateway)', async () => {
    const seen = await runWithContext({ requestId: 'outer' }, () =>
      manager.with(traceB, async () => {
        const inner = await runWithRequestAndTrace({ requestId: 'r3' }, traceA, async () => {
          await tick();
          return [currentRequestId(), manager.active().getValue(key)];
        });
        return [...inner, currentRequestId(), manager.active().getValue(key)];
      }),
    );
    expect(seen).toEqual(['r3', 'a', 'outer', 'b']);
  });

  it('sets the request id and the trace context independently, in either order', async () => {
    // A request id set inside a span keeps the span (gRPC servers, Kafka consumers) ...
    const inner = await manager.with(traceA, () =>
      runWithContext({ requestId: 'r1' }, async () => {
        await tick();
        return [currentRequestId(), manager.active().getValue(key)];
      }),
    );
    // ... and a span started inside a request keeps its request id (the gateway).
    const outer = await runWithContext({ requestId: 'r2' }, () =>
      manager.with(traceB, async () => {
        await tick();
        return [currentRequestId(), manager.active().getValue(key)];
      }),
    );
    expect([inner, outer]).toEqual([
      ['r1', 'a'],
      ['r2', 'b'],
    ]);
  });

  it('binds a function to a context, with its this and arguments', () => {
    const target = {
      base: 1,
      add(this: { base: number }, n: number) {
        return [this.base + n, manager.active().getValue(key)];
      },
    };
    const bound = manager.bind(traceA, target.add);
    expect(bound.call(target, 2)).toEqual([3, 'a']);
    expect(manager.active()).toBe(ROOT_CONTEXT);
  });
});
