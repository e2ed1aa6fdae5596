import {
  activeTraceContext,
  currentContext,
  runForTenant,
  runWithContext,
  runWithTraceContext,
  setCurrentTenant,
} from './context.js';

describe('request context: the tenant a request is counted for', () => {
  it('names the tenant for the rest of the request, awaits included, and nowhere outside it', async () => {
    setCurrentTenant('ten_outside');
    expect(currentContext()).toBeUndefined();
    await runWithContext({ requestId: 'req_1' }, async () => {
      setCurrentTenant('ten_a');
      await new Promise((resolve) => setImmediate(resolve));
      expect(currentContext()).toEqual({ requestId: 'req_1', tenantId: 'ten_a' });
    });
    expect(currentContext()).toBeUndefined();
  });

  it("runs work for another tenant, or for none, keeping the request id and the caller's tenant", async () => {
    await runWithContext({ requestId: 'req_2', tenantId: 'ten_a' }, async () => {
      const seen = await runForTenant('ten_b', async () => {
        await new Promise((resolve) => setImmediate(resolve));
        return currentContext();
      });
      expect(seen).toEqual({ requestId: 'req_2', tenantId: 'ten_b' });
      // A batch call for several requests is counted for no tenant.
      expect(runForTenant(undefined, () => currentContext())).toEqual({ requestId: 'req_2' });
      expect(currentContext()).toEqual({ requestId: 'req_2', tenantId: 'ten_a' });
    });
  });

  it('works outside any request (a job of its own) and keeps the active trace context', () => {
    expect(runForTenant('ten_c', () => currentContext())).toEqual({ requestId: '', tenantId: 'ten_c' });
    const trace = { span: 'parent' };
    runWithContext({ requestId: 'req_3' }, () =>
      runWithTraceContext(trace, () => {
        expect(runForTenant('ten_c', () => activeTraceContext())).toBe(trace);
        expect(runForTenant(undefined, () => activeTraceContext())).toBe(trace);
      }),
    );
  });
});
