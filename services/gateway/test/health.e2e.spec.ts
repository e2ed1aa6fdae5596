import { api, startPlatform, suiteFixture, waitFor } from '@agentplatform/testing';

describe('gateway health and edges', () => {
  const platform = suiteFixture(() => startPlatform());

  it('reports the process up on /healthz', async () => {
    const res = await api(platform.url).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('is ready once every backend answers its gRPC health check', async () => {
    const res = await waitFor(
      async () => {
        const r = await api(platform.url).get('/readyz');
        return r.status === 200 ? r : undefined;
      },
      { what: '/readyz 200' },
    );
    expect(res.body).toEqual({
      status: 'ready',
      services: { identity: 'up', 'agent-memory': 'up', workflow: 'up', webhook: 'up' },
    });
  });

  it('echoes a given X-Request-Id and makes one otherwise', async () => {
    const given = await api(platform.url).get('/healthz', { headers: { 'x-request-id': 'req-test-123' } });
    expect(given.headers.get('x-request-id')).toBe('req-test-123');
    const made = await api(platform.url).get('/healthz');
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers an unknown route with a JSON 404 in the shape of its prefix', async () => {
    const flat = await api(platform.url).get('/api/v1/nope');
    expect(flat.status).toBe(404);
    expect(flat.body).toEqual({ error: 'not_found', message: 'Route not found' });
    const envelope = await api(platform.url).get('/v1/nope');
    expect(envelope.status).toBe(404);
    expect(envelope.body).toEqual({
      success: false,
      error: { code: 'not_found', message: 'Route not found', details: [] },
    });
  });

  it('names the backend that is down on /readyz, and recovers when it is back', async () => {
    const webhook = platform.service('webhook');
    await webhook.stop();
    const down = await api(platform.url).get('/readyz');
    expect(down.status).toBe(503);
    expect(down.body.error).toBe('service_unavailable');
    expect(down.body.services.webhook).toBe('down');
    expect(down.body.services.identity).toBe('up');
    await webhook.start();
    await waitFor(async () => (await api(platform.url).get('/readyz')).status === 200, { what: 'ready again' });
  });
});
