import type { Server } from 'nice-grpc';
import { HealthDefinition } from 'nice-grpc-server-health';
import { DomainError } from './errors';
import { createGrpcClient, openChannel, type Channel } from './grpc-client';
import { createGrpcServer } from './grpc-server';
import { unaryHealthMethod } from './health-method.support';
import { InFlightLimit } from './in-flight-limit';
import { createLogger } from './logger';
import { runWithContext } from './context';
import { Metrics } from './metrics';

/** A one-method service for the test. */
const TestDefinition = {
  name: 'Test',
  fullName: 'agentplatform.test.Test',
  methods: { work: unaryHealthMethod('Work') },
} as const;

describe('in-flight limits across real gRPC', () => {
  let server: Server;
  let channel: Channel;
  let metrics: Metrics;
  /** Calls whose handler ran; each waits for `open` before it answers. */
  const started: string[] = [];
  let open: (() => void) | undefined;
  let gate = Promise.resolve();

  beforeAll(async () => {
    metrics = new Metrics('test');
    ({ server } = createGrpcServer({ logger: createLogger('test', 'silent'), metrics, maxInFlight: 2 }));
    server.add(TestDefinition, {
      async work(request) {
        started.push(request.service);
        await gate;
        return { status: 1 };
      },
    });
    const port = await server.listen('127.0.0.1:0');
    channel = openChannel(`127.0.0.1:${port}`);
  });

  afterAll(async () => {
    channel.close();
    await server.shutdown();
  });

  beforeEach(() => {
    started.length = 0;
    gate = new Promise((resolve) => (open = resolve));
  });

  it('refuses a call past the server limit at once, before its handler runs, with a retry hint', async () => {
    const client = createGrpcClient(TestDefinition, channel, { deadlineMs: 5_000 });
    const held = [client.work({ service: 'a' }), client.work({ service: 'b' })];
    await waitUntil(() => started.length === 2);

    const before = Date.now();
    const refused = await client.work({ service: 'c' }).catch((error: unknown) => error);
    expect(Date.now() - before).toBeLessThan(1_000);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'service_unavailable', retryAfter: 1 });
    expect((refused as Error).message).toMatch(/did not start this request \(nothing was done\)/);
    expect(started).toEqual(['a', 'b']);

    // A busy service is still healthy: health checks are neither counted nor refused.
    const health = createGrpcClient(HealthDefinition, channel, { deadlineMs: 1_000 });
    await expect(health.check({ service: '' })).resolves.toMatchObject({ status: 1 });

    open?.();
    await Promise.all(held);
    // The places are given back: the next call runs.
    await expect(client.work({ service: 'd' })).resolves.toMatchObject({ status: 1 });
    const exposition = await metrics.registry.metrics();
    expect(exposition).toMatch(/grpc_server_shed_total\{target="server",service="test"\} 1/);
  });

  it('refuses a call past the client limit without sending it', async () => {
    const limit = new InFlightLimit(1);
    const client = createGrpcClient(TestDefinition, channel, {
      deadlineMs: 5_000,
      inFlight: { limit, name: 'backend' },
    });
    const held = client.work({ service: 'a' });
    await waitUntil(() => started.length === 1);
    const refused = await client.work({ service: 'b' }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'service_unavailable', retryAfter: 1 });
    expect((refused as Error).message).toMatch(/^The backend is at capacity/);
    expect(started).toEqual(['a']);
    open?.();
    await held;
    expect(limit.current).toBe(0);
  });

  it("keeps a tenant's calls to its share of the places, the rest free for other tenants", async () => {
    const refusals: string[] = [];
    const limit = new InFlightLimit(2, (reason) => refusals.push(reason), 1);
    const client = createGrpcClient(TestDefinition, channel, {
      deadlineMs: 5_000,
      inFlight: { limit, name: 'backend' },
    });
    const as = (tenantId: string | undefined, service: string) =>
      runWithContext({ requestId: service, ...(tenantId ? { tenantId } : {}) }, () => client.work({ service }));

    const held = [as('ten_noisy', 'n1')];
    await waitUntil(() => started.length === 1);
    const second = await as('ten_noisy', 'n2').catch((error: unknown) => error);
    expect(second).toBeInstanceOf(DomainError);
    expect(second).toMatchObject({ code: 'rate_limit_exceeded', retryAfter: 1 });
    expect((second as Error).message).toMatch(/already has 1 requests in progress at the backend.*nothing was done/);
    expect(refusals).toEqual(['tenant_share']);

    // Another tenant still finds a place; past both, a 503.
    held.push(as('ten_quiet', 'q1'));
    await waitUntil(() => started.length === 2);
    await expect(as('ten_other', 'o1')).rejects.toMatchObject({ code: 'service_unavailable' });
    expect(refusals).toEqual(['tenant_share', 'capacity']);
    expect(started).toEqual(['n1', 'q1']);

    open?.();
    await Promise.all(held);
    expect(limit.current).toBe(0);
    // The tenant's place was given back with its call; calls for no tenant have no share.
    await expect(as('ten_noisy', 'n3')).resolves.toMatchObject({ status: 1 });
    await expect(Promise.all([as(undefined, 'i1'), as(undefined, 'i2')])).resolves.toHaveLength(2);
  });
});

describe('the places kept for tenants with none in flight', () => {
  it('refuses tenants holding places the last one, and lets a tenant with none take it', () => {
    const refusals: string[] = [];
    // 8 places, 4 a tenant, the last 1 kept (reserveOf(8)).
    const limit = new InFlightLimit(8, (reason) => refusals.push(reason), 4);
    for (let i = 0; i < 4; i++) limit.enter('backend', 'ten_a');
    for (let i = 0; i < 3; i++) limit.enter('backend', 'ten_b');
    // Two tenants under their shares would otherwise take every place between them.
    expect(() => limit.enter('backend', 'ten_b')).toThrow(
      expect.objectContaining({
        code: 'rate_limit_exceeded',
        retryAfter: 1,
        message: expect.stringMatching(/has 3 requests in progress.*kept for tenants with none.*nothing was done/),
      }),
    );
    expect(refusals).toEqual(['tenant_share']);
    limit.enter('backend', 'ten_c');
    expect(limit.current).toBe(8);
    expect(() => limit.enter('backend', 'ten_d')).toThrow(expect.objectContaining({ code: 'service_unavailable' }));
    // A place given back is free again for a tenant that holds some, while more than the reserve is free.
    limit.leave('ten_a');
    limit.leave('ten_c');
    limit.enter('backend', 'ten_b');
    expect(limit.current).toBe(7);
  });
});

async function waitUntil(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
