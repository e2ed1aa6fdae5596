import path from 'node:path';
import { api, registerUser, startPlatform, type ServiceProcess, type Platform } from '@agentplatform/testing';

/** Rate limits (docs/design.md section 5) on the free plan, shared by two gateway processes. */
describe('rate limits', () => {
  let platform: Platform;
  let second: ServiceProcess;
  let secondUrl: string;

  beforeAll(async () => {
    const gatewayEnv = { TRUSTED_PROXY_HOPS: '1', AUTH_RATE_LIMIT_PER_MINUTE: '8', HOOK_RATE_LIMIT_PER_MINUTE: '3' };
    platform = await startPlatform({
      services: ['identity', 'workflow'],
      env: { DEFAULT_PLAN: 'free' },
      serviceEnv: { gateway: gatewayEnv },
    });
    // A second replica: same backends, same gateway database, its own port.
    second = platform.service('gateway').replica(path.join(platform.logDir, 'gateway-2.log'));
    secondUrl = `http://127.0.0.1:${(await second.start()).http_port}`;
  });

  afterAll(async () => {
    await second?.stop();
    await platform?.stop();
  });

  it("shares one tenant's budget across two gateways: the 61st request in a minute is 429", async () => {
    const user = await registerUser(platform.url);
    const gateways = [api(platform.url, user.accessToken), api(secondUrl, user.accessToken)];
    // The first request alone, so its remaining count is exact; the other 59 concurrently.
    const first = await gateways[0].get('/api/v1/billing/credits');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-remaining')).toBe('59');
    const remaining: number[] = [];
    for (let sent = 1; sent < 60; sent += 10) {
      const answers = await Promise.all(
        Array.from({ length: Math.min(10, 60 - sent) }, (_, i) =>
          gateways[(sent + i) % 2].get('/api/v1/billing/credits'),
        ),
      );
      for (const res of answers) {
        expect(res.status).toBe(200);
        expect(res.headers.get('x-ratelimit-limit')).toBe('60');
        remaining.push(Number(res.headers.get('x-ratelimit-remaining')));
      }
    }
    // Each replica answered only 30 of the 60, so a refusal now proves the count is shared.
    // (The remaining values of concurrent requests may repeat on the MongoDB stand-in, whose
    // findOneAndUpdate returns the document after, not with, its own increment.)
    expect(remaining).toHaveLength(59);
    expect(Math.min(...remaining)).toBeLessThanOrEqual(1);

    const refused = await gateways[0].get('/api/v1/billing/credits');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: 'rate_limit_exceeded',
      message: expect.any(String),
      retry_after: expect.any(Number),
    });
    expect(refused.body.retry_after).toBeGreaterThanOrEqual(1);
    expect(refused.body.retry_after).toBeLessThanOrEqual(60);
    expect(refused.headers.get('retry-after')).toBe(String(refused.body.retry_after));
    expect(refused.headers.get('x-ratelimit-limit')).toBe('60');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    const reset = Number(refused.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 61);

    const onSecond = await gateways[1].get('/v1/billing/credits');
    expect(onSecond.status).toBe(429);
    expect(onSecond.body).toEqual({
      success: false,
      error: { code: 'rate_limit_exceeded', message: expect.any(String), details: [], retry_after: expect.any(Number) },
    });

    // Another tenant has its own budget.
    const other = await registerUser(secondUrl);
    const fresh = await api(secondUrl, other.accessToken).get('/api/v1/billing/credits');
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('x-ratelimit-remaining')).toBe('59');
  });

  it('limits login attempts per client address', async () => {
    const user = await registerUser(platform.url);
    const from = (address: string) => ({ 'x-forwarded-for': address });
    const attempt = (address: string, url = platform.url) =>
      api(url).post('/api/v1/auth/login', undefined, {
        form: { username: user.email, password: user.password },
        headers: from(address),
      });
    for (let i = 0; i < 8; i += 1)
      expect((await attempt('203.0.113.7', i % 2 ? secondUrl : platform.url)).status).toBe(200);
    const refused = await attempt('203.0.113.7');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('rate_limit_exceeded');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await attempt('198.51.100.20')).status).toBe(200);
  });

  it("limits each workflow's inbound hooks separately, across replicas", async () => {
    const user = await registerUser(platform.url);
    const owner = api(platform.url, user.accessToken);
    const activeHook = async (name: string): Promise<string> => {
      const created = await owner.post('/api/v1/workflows', {
        name,
        nodes: [{ id: 'hook', type: 'webhook', config: { path: 'incoming' } }],
        edges: [],
      });
      expect((await owner.post(`/api/v1/workflows/${created.body.id}/resume`)).status).toBe(200);
      return new URL(created.body.webhook_url).pathname;
    };
    const [flooded, other] = [await activeHook('flooded'), await activeHook('other')];
    const hook = (url: string, hookPath: string) => api(url).post(hookPath, { hello: 'world' });
    for (let i = 0; i < 3; i += 1) expect((await hook(i % 2 ? secondUrl : platform.url, flooded)).status).toBe(202);
    const refused = await hook(platform.url, flooded);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('rate_limit_exceeded');
    expect(refused.headers.get('x-ratelimit-limit')).toBe('3');
    expect((await hook(secondUrl, other)).status).toBe(202);
  });
});
