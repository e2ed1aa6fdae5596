import path from 'node:path';
import mongoose from 'mongoose';
import {
  api,
  createApiKey,
  login,
  metricSum,
  registerUser,
  request,
  type ServiceProcess,
  startPlatform,
  waitFor,
  type Platform,
} from '@agentplatform/testing';

/** Polls `probe` until it answers `status`; returns how long that took after `since`. */
async function msUntilStatus(probe: () => Promise<{ status: number }>, status: number, since: number) {
  await waitFor(async () => (await probe()).status === status, {
    timeoutMs: 10_000,
    intervalMs: 10,
    what: `${status}`,
  });
  return Date.now() - since;
}

/**
 * Revocation on the next request across replicas (docs/design.md section 4), atomic login throttling,
 * anonymous limits (section 5) and backends that are down or late (section 3), against two real
 * gateway processes, identity, Kafka and the MongoDB stand-in.
 */
describe('access: revocation, throttling, anonymous traffic, deadlines', () => {
  let platform: Platform;
  let second: ServiceProcess;
  let secondUrl: string;
  let identity: ServiceProcess;

  beforeAll(async () => {
    const gatewayEnv = {
      AUTH_RATE_LIMIT_PER_MINUTE: '10000',
      // Generous: 50 parallel logins on a loaded machine; the deadline test waits this long once.
      GRPC_DEADLINE_MS: '10000',
      // Nothing listens there: calls to agent-memory find no backend.
      AGENT_MEMORY_GRPC_ADDR: '127.0.0.1:1',
    };
    platform = await startPlatform({ services: ['identity'], serviceEnv: { gateway: gatewayEnv } });
    // A second replica behind a (simulated) proxy: same backends, Kafka topic and gateway database.
    second = platform
      .service('gateway')
      .replica(path.join(platform.logDir, 'gateway-2.log'), { TRUSTED_PROXY_HOPS: '1' });
    secondUrl = `http://127.0.0.1:${(await second.start()).http_port}`;
    identity = platform.service('identity');
    // Both replicas must hear revocations before the tests can prove they act on them.
    for (const gateway of [platform.service('gateway'), second]) {
      await waitFor(async () => (await metricSum(gateway, 'gateway_access_feed_live')) === 1, {
        timeoutMs: 60_000,
        what: 'the access event feed to be live',
      });
    }
    // One revocation end to end first: the relay's first message to a new topic also fetches its
    // metadata, a one-off cost that is not the revocation delay the tests measure.
    const warmup = await registerUser(platform.url);
    const key = await createApiKey(platform.url, warmup.accessToken, ['agents:read']);
    await api(platform.url, warmup.accessToken).delete(`/api/v1/auth/api-keys/${key.id}`);
    await waitFor(async () => (await metricSum(second, 'gateway_access_events_total', 'api_key')) >= 1, {
      timeoutMs: 30_000,
      what: 'the first access event to reach replica 2',
    });
  }, 180_000);

  afterAll(async () => {
    await second?.stop();
    await platform?.stop();
  });

  describe('revocation on the next request', () => {
    it('a key revoked through replica 1 is refused by replica 2 within 1 s', async () => {
      const user = await registerUser(platform.url);
      const key = await createApiKey(platform.url, user.accessToken, ['agents:read']);
      // Replica 2 has verified (and cached) the key.
      for (let i = 0; i < 3; i++) expect((await api(secondUrl, key.key).get('/api/v1/auth/me')).status).toBe(200);

      const revoke = await api(platform.url, user.accessToken).delete(`/api/v1/auth/api-keys/${key.id}`);
      expect(revoke.status).toBe(200);
      const revokedAt = Date.now();
      // The replica that made the change forgot it before answering.
      expect((await api(platform.url, key.key).get('/api/v1/auth/me')).status).toBe(401);
      const elapsed = await msUntilStatus(() => api(secondUrl, key.key).get('/api/v1/auth/me'), 401, revokedAt);
      expect(elapsed).toBeLessThan(1_000);
      expect(await metricSum(second, 'gateway_access_events_total', 'access.api_key.revoked')).toBeGreaterThanOrEqual(
        2,
      );
    });

    it("a logged-out session's access token is refused by replica 2 within 1 s", async () => {
      const user = await registerUser(platform.url);
      const session = await login(platform.url, user.email, user.password);
      for (let i = 0; i < 3; i++)
        expect((await api(secondUrl, session.accessToken).get('/api/v1/billing/credits')).status).toBe(200);
      // Replica 2 also caches the user's profile for /auth/me: it must not outlive the session either.
      expect((await api(secondUrl, session.accessToken).get('/api/v1/auth/me')).status).toBe(200);

      // Replica 1 has it cached too, and forgets it before the logout answers.
      expect((await api(platform.url, session.accessToken).get('/api/v1/billing/credits')).status).toBe(200);
      const out = await api(platform.url).post('/api/v1/auth/logout', { refresh_token: session.refreshToken });
      expect(out.status).toBe(200);
      const loggedOutAt = Date.now();
      expect((await api(platform.url, session.accessToken).get('/api/v1/billing/credits')).status).toBe(401);
      const elapsed = await msUntilStatus(
        () => api(secondUrl, session.accessToken).get('/api/v1/billing/credits'),
        401,
        loggedOutAt,
      );
      expect(elapsed).toBeLessThan(1_000);
      expect((await api(secondUrl, session.accessToken).get('/api/v1/auth/me')).status).toBe(401);
      expect(
        (await api(platform.url).post('/api/v1/auth/refresh', { refresh_token: session.refreshToken })).status,
      ).toBe(401);
      // Another session of the same user is untouched.
      expect((await api(secondUrl, user.accessToken).get('/api/v1/billing/credits')).status).toBe(200);
    });

    it('a refresh race leaves exactly one live family member; a later reuse revokes it everywhere', async () => {
      const user = await registerUser(platform.url);
      const race = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          api(i % 2 ? secondUrl : platform.url).post('/api/v1/auth/refresh', { refresh_token: user.refreshToken }),
        ),
      );
      const winners = race.filter((res) => res.status === 200);
      expect(winners).toHaveLength(1);
      expect(race.filter((res) => res.status === 401)).toHaveLength(9);
      const winner = winners[0].body as { access_token: string; refresh_token: string };
      expect((await api(secondUrl, winner.access_token).get('/api/v1/billing/credits')).status).toBe(200);

      // Past the race grace, presenting the rotated token again is a replay: the family ends.
      await new Promise((resolve) => setTimeout(resolve, 5_200));
      const replay = await api(platform.url).post('/api/v1/auth/refresh', { refresh_token: user.refreshToken });
      expect(replay.status).toBe(401);
      const replayedAt = Date.now();
      const elapsed = await msUntilStatus(
        () => api(secondUrl, winner.access_token).get('/api/v1/billing/credits'),
        401,
        replayedAt,
      );
      expect(elapsed).toBeLessThan(1_000);
      expect(
        (await api(platform.url).post('/api/v1/auth/refresh', { refresh_token: winner.refresh_token })).status,
      ).toBe(401);
    }, 30_000);
  });

  describe('login throttling', () => {
    const wrong = (url: string, email: string) =>
      request(url, 'POST', '/api/v1/auth/login', undefined, { form: { username: email, password: 'wrong-password' } });

    it('50 parallel wrong logins get no more password checks than the threshold', async () => {
      const user = await registerUser(platform.url);
      const before = await metricSum(identity, 'identity_password_checks_total');
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => wrong(i % 2 ? secondUrl : platform.url, user.email)),
      );
      const checks = (await metricSum(identity, 'identity_password_checks_total')) - before;
      expect(checks).toBeLessThanOrEqual(5);
      expect(checks).toBeGreaterThanOrEqual(1);
      expect(answers.every((res) => res.status === 401 || res.status === 429)).toBe(true);
      expect(answers.filter((res) => res.status === 429).length).toBeGreaterThanOrEqual(45);
      const refused = answers.find((res) => res.status === 429)!;
      expect(refused.headers.get('retry-after')).toBe(String(refused.body.retry_after));
    });

    it('the right password inside a burst of wrong ones gets no token once the account is locked', async () => {
      const user = await registerUser(platform.url);
      const before = await metricSum(identity, 'identity_password_checks_total');
      const burst = Array.from({ length: 19 }, () => wrong(platform.url, user.email));
      // Once identity's throttle record counts five attempts the budget is used up, whichever of
      // them are still being checked: read it where identity keeps it.
      const connection = await mongoose
        .createConnection(platform.mongoUri, { dbName: platform.database('identity') })
        .asPromise();
      try {
        const throttles = connection.collection<{ _id: string; failures: number }>('login_throttles');
        await waitFor(async () => ((await throttles.findOne({ _id: user.email.toLowerCase() }))?.failures ?? 0) >= 5, {
          intervalMs: 5,
          what: 'five counted attempts',
        });
      } finally {
        await connection.close();
      }
      const right = request(platform.url, 'POST', '/api/v1/auth/login', undefined, {
        form: { username: user.email, password: user.password },
      });
      const rest = Array.from({ length: 10 }, () => wrong(secondUrl, user.email));
      const answers = await Promise.all([...burst, right, ...rest]);
      const answer = await right;
      expect(answer.status).toBe(429);
      expect(answer.body.access_token).toBeUndefined();
      expect(answers.some((res) => res.status === 200)).toBe(false);
      expect((await metricSum(identity, 'identity_password_checks_total')) - before).toBeLessThanOrEqual(5);
    });
  });

  describe('anonymous traffic', () => {
    it('a flood of bogus keys gets 429 and reaches identity at most once per distinct key', async () => {
      const verify = () => metricSum(identity, 'grpc_server_handling_seconds_count', '/VerifyApiKey"');
      const before = await verify();
      const keys = Array.from({ length: 10 }, (_, i) => `apk_bogus${i}${'x'.repeat(36)}`);
      const answers = [];
      for (let round = 0; round < 10; round++) {
        answers.push(
          ...(await Promise.all(
            keys.map((key, i) =>
              request(secondUrl, 'GET', '/api/v1/agents', undefined, {
                token: key,
                // The proxy appended 10.0.0.1; what the client wrote to the left of it varies.
                headers: { 'x-forwarded-for': `198.51.100.${round * 10 + i}, 10.0.0.1` },
              }),
            ),
          )),
        );
      }
      expect(answers.every((res) => res.status === 401 || res.status === 429)).toBe(true);
      const limited = answers.filter((res) => res.status === 429);
      // A burst of 20, then about one a second.
      expect(limited.length).toBeGreaterThanOrEqual(70);
      expect(limited[0].body).toEqual({
        error: 'rate_limit_exceeded',
        message: expect.any(String),
        retry_after: expect.any(Number),
      });
      expect(limited[0].headers.get('retry-after')).toBe(String(limited[0].body.retry_after));
      expect((await verify()) - before).toBeLessThanOrEqual(keys.length);
    });

    it('requests without credentials are limited per address; a spoofed X-Forwarded-For does not escape', async () => {
      const answers = [];
      for (let i = 0; i < 30; i++) {
        answers.push(
          await request(secondUrl, 'GET', '/api/v1/agents', undefined, {
            headers: { 'x-forwarded-for': `203.0.113.${i}, 10.0.0.2` },
          }),
        );
      }
      expect(answers.slice(0, 20).every((res) => res.status === 401)).toBe(true);
      expect(answers.slice(20).filter((res) => res.status === 429).length).toBeGreaterThanOrEqual(9);
      // Another address (the proxy's entry) has its own budget; valid credentials never draw from it.
      const other = await request(secondUrl, 'GET', '/api/v1/agents', undefined, {
        headers: { 'x-forwarded-for': '10.0.0.3' },
      });
      expect(other.status).toBe(401);
      const user = await registerUser(platform.url);
      const valid = await request(secondUrl, 'GET', '/api/v1/billing/credits', undefined, {
        token: user.accessToken,
        headers: { 'x-forwarded-for': '10.0.0.2' },
      });
      expect(valid.status).toBe(200);
    });
  });

  describe('backends that are down or late', () => {
    it('an unreachable backend is 503 service_unavailable naming no internals', async () => {
      const user = await registerUser(platform.url);
      const res = await api(platform.url, user.accessToken).get('/api/v1/agents');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: 'service_unavailable', message: expect.any(String), retry_after: 2 });
      expect(res.headers.get('retry-after')).toBe('2');
      expect(res.text).not.toMatch(/agentplatform|AgentMemory|127\.0\.0\.1|:1\b/);
      const enveloped = await api(platform.url, user.accessToken).get('/v1/agents');
      expect(enveloped.status).toBe(503);
      expect(enveloped.body.error.code).toBe('service_unavailable');
    });

    it('a backend that does not answer in time is 503, and a stopped one too, never 500', async () => {
      const identity = platform.service('identity');
      const bogus = `apk_late${'y'.repeat(36)}`;
      process.kill(identity.pid!, 'SIGSTOP');
      try {
        const late = await request(platform.url, 'GET', '/api/v1/agents', undefined, { token: bogus });
        expect(late.status).toBe(503);
        expect(late.body.error).toBe('service_unavailable');
        expect(late.text).not.toMatch(/agentplatform|Identity|VerifyApiKey/);
      } finally {
        process.kill(identity.pid!, 'SIGCONT');
      }
      await identity.stop();
      const down = await request(platform.url, 'GET', '/api/v1/agents', undefined, { token: `${bogus}z` });
      expect(down.status).toBe(503);
      expect(down.body).toEqual({ error: 'service_unavailable', message: expect.any(String), retry_after: 2 });
    }, 45_000);
  });
});
