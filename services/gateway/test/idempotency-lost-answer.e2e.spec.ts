import { api, registerUser, startPlatform, suiteFixture, waitFor } from '@agentplatform/testing';

/**
 * A write whose answer was lost to a deadline after the backend got it (docs/design.md sections
 * 2-3): the Idempotency-Key is kept, so a retry never performs it twice. Identity is stopped
 * (SIGSTOP) while the write is in flight and continued after the gateway's deadline (5 s): it then
 * performs the write, whose answer nobody reads.
 */
describe('Idempotency-Key after a lost answer', () => {
  const platform = suiteFixture(() =>
    startPlatform({
      services: ['identity'],
      // Credentials stay cached while identity is stopped.
      serviceEnv: { gateway: { AUTH_CACHE_TTL_MS: '120000' } },
    }),
  );

  beforeAll(async () => {
    // Credentials are cached (and so checked without identity) only once the access feed is live.
    const metrics = `http://127.0.0.1:${platform.service('gateway').ready!.metrics_port}/metrics`;
    await waitFor(async () => /^gateway_access_feed_live(\{[^}]*\})? 1$/m.test(await (await fetch(metrics)).text()), {
      timeoutMs: 60_000,
      what: 'the access event feed to be live',
    });
  }, 90_000);

  /** Sends `write` while identity hangs; answers what the caller got. */
  async function whileIdentityHangs<T>(write: () => Promise<T>): Promise<T> {
    const identity = platform.service('identity');
    identity.signal('SIGSTOP');
    try {
      return await write();
    } finally {
      identity.signal('SIGCONT');
    }
  }

  it('keeps the key: the 503 says so, and a retry of a plain write is refused, not performed again', async () => {
    const user = await registerUser(platform.url);
    const http = api(platform.url, user.accessToken);
    expect((await http.get('/api/v1/auth/me')).status).toBe(200);
    const headers = { 'idempotency-key': 'lost-key-0001' };
    const body = { name: 'lost answer', scopes: ['agents:read'] };

    const first = await whileIdentityHangs(() => http.post('/api/v1/auth/api-keys', body, { headers }));
    expect(first.status).toBe(503);
    expect(first.body).toEqual({
      error: 'service_unavailable',
      message: expect.stringMatching(/may have been performed: retrying it with the same Idempotency-Key is safe/),
      retry_after: expect.any(Number),
    });
    // Identity, continued, performs the write the gateway stopped waiting for.
    const keys = await waitFor(
      async () => {
        const list = await http.get('/api/v1/auth/api-keys');
        const named = list.body.items?.filter((k: { name: string }) => k.name === body.name);
        return list.status === 200 && named?.length ? named : undefined;
      },
      { timeoutMs: 15_000, what: 'the API key identity created after the deadline' },
    );
    expect(keys).toHaveLength(1);

    const retry = await http.post('/api/v1/auth/api-keys', body, { headers });
    expect(retry.status).toBe(409);
    expect(retry.body.message).toMatch(/may have been performed, but its answer was lost/);
    const after = await http.get('/api/v1/auth/api-keys');
    const named = after.body.items.filter((k: { name: string }) => k.name === body.name);
    expect(named).toHaveLength(1);
  });

  it('a write whose backend dedupes by the key (a purchase) is retried into its first outcome, once', async () => {
    const user = await registerUser(platform.url);
    const http = api(platform.url, user.accessToken);
    expect((await http.get('/api/v1/billing/credits')).body.balance).toBe(1000);
    const headers = { 'idempotency-key': 'lost-purchase-0001' };

    const first = await whileIdentityHangs(() => http.post('/api/v1/billing/purchases', { credits: 7 }, { headers }));
    expect(first.status).toBe(503);
    const retry = await waitFor(
      async () => {
        const res = await http.post('/api/v1/billing/purchases', { credits: 7 }, { headers });
        return res.status === 201 ? res : undefined;
      },
      { timeoutMs: 15_000, what: 'the retried purchase' },
    );
    expect(retry.body).toMatchObject({ credits: 7, balance: 1007 });
    const replay = await http.post('/api/v1/billing/purchases', { credits: 7 }, { headers });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(retry.body.id);
    expect((await http.get('/api/v1/billing/credits')).body.balance).toBe(1007);
  });
});
