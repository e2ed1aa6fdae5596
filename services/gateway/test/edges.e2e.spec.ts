import http from 'node:http';
import { api, createApiKey, registerUser, startTenantPlatform, suiteFixture, waitFor } from '@agentplatform/testing';

/** Error edges, both error shapes, billing with its events, Idempotency-Key and the OpenAPI document. */
describe('gateway edges, billing and idempotency', () => {
  /** The platform, a tap on its events and a first tenant, whose owner most tests act as. */
  const suite = suiteFixture(() => startTenantPlatform({ services: ['identity'] }, 'edges'));

  function rawRequest(
    method: string,
    path: string,
  ): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        new URL(path, suite.platform.url),
        { method, headers: { authorization: `Bearer ${suite.user.accessToken}` } },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  describe('errors and edges', () => {
    it('answers a method no route serves (TRACE included) with 405 and Allow (RFC 9110), not 500', async () => {
      // fetch refuses to send TRACE, so node:http sends them all.
      for (const [method, path, allow] of [
        ['TRACE', '/api/v1/auth/me', 'HEAD, GET'],
        ['PATCH', '/api/v1/auth/me', 'HEAD, GET'],
        ['DELETE', '/v1/agents', 'HEAD, GET, POST'],
        ['GET', `/hooks/hk_${'0'.repeat(32)}`, 'POST'],
        ['POST', '/healthz', 'HEAD, GET'],
      ]) {
        const res = await rawRequest(method!, path!);
        expect([method, path, res.status, res.headers.allow]).toEqual([method, path, 405, allow]);
        const { error } = JSON.parse(res.body);
        expect(path!.startsWith('/v1/') ? error.code : error).toBe('method_not_allowed');
      }
    });

    it('refuses a control character in a JSON key, in bodies, queries and hooks, naming the field', async () => {
      const http = suite.http;
      const memory = await http.post('/api/v1/memory', {
        agent_id: 'agt_x',
        content: 'x',
        metadata: { ok: { 'bad\u0000key': 1 } },
      });
      expect(memory.status).toBe(400);
      expect(memory.body.details).toEqual([
        { field: 'metadata.ok.bad\\u0000key', message: 'must not contain a control character (U+0000 to U+001F)' },
      ]);
      const hook = await api(suite.platform.url).post(`/hooks/hk_${'0'.repeat(32)}?%00=1`, { a: 1 });
      expect(hook.status).toBe(400);
      expect(hook.body.details[0].field).toBe('query.\\u0000');
    });

    it('refuses integers beyond int32 at the edge, naming the field', async () => {
      const http = suite.http;
      const page = await http.get('/api/v1/agents?page=2147483648');
      expect(page.status).toBe(400);
      expect(page.body.details.map((d: { field: string }) => d.field)).toEqual(['query.page']);
      const retry = await http.post('/api/v1/workflows', {
        name: 'big',
        nodes: [{ id: 'a', type: 'transform', config: {}, retry: { max_attempts: 2 ** 40 }, timeout_ms: 2 ** 33 }],
      });
      expect(retry.status).toBe(400);
      expect(retry.body.details.map((d: { field: string }) => d.field).sort()).toEqual([
        'nodes[0].retry.max_attempts',
        'nodes[0].timeout_ms',
      ]);
      expect(JSON.stringify(retry.body)).not.toMatch(/serialization|int32/);
    });

    it('answers malformed JSON with 400, not 500', async () => {
      const res = await suite.http.post('/api/v1/auth/api-keys', undefined, {
        raw: '{"name": "x", "scopes": [',
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'validation_error',
        message: 'Malformed JSON body',
        details: [{ field: 'body', message: 'is not valid JSON' }],
      });
    });

    it('answers a body over 1 MiB with 413', async () => {
      const res = await suite.http.post('/api/v1/auth/api-keys', {
        name: 'x'.repeat(1024 * 1024 + 10),
        scopes: ['agents:read'],
      });
      expect(res.status).toBe(413);
      expect(res.body.error).toBe('payload_too_large');
    });

    it('answers a wrong content type with 415', async () => {
      const res = await suite.http.post('/api/v1/auth/api-keys', undefined, {
        raw: 'name=x&scopes=agents:read',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(res.status).toBe(415);
      expect(res.body).toEqual({ error: 'unsupported_media_type', message: 'Content-Type must be application/json' });
      // A hook takes JSON or a form (its OpenAPI entry says so); another body type is refused before any lookup.
      const hook = await api(suite.platform.url).post(`/hooks/hk_${'0'.repeat(32)}`, undefined, {
        raw: 'hello',
        headers: { 'content-type': 'text/plain' },
      });
      const accepted = 'application/json or application/x-www-form-urlencoded';
      expect([hook.status, hook.body.message]).toEqual([415, `Content-Type must be ${accepted}`]);
    });

    it('answers an unknown route with a JSON 404 in both shapes', async () => {
      const flat = await suite.http.get('/api/v1/no/such/route');
      expect(flat.status).toBe(404);
      expect(flat.body).toEqual({ error: 'not_found', message: 'Route not found' });
      const envelope = await suite.http.get('/v1/no/such/route');
      expect(envelope.body).toEqual({
        success: false,
        error: { code: 'not_found', message: 'Route not found', details: [] },
      });
    });

    it('answers REST validation errors with 400 (422 is for the auth endpoints)', async () => {
      const res = await suite.http.post('/api/v1/billing/purchases', { credits: 'lots' });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([{ field: 'credits', message: expect.any(String) }]);
      const query = await suite.http.get('/api/v1/billing/credits?limit=1000');
      expect(query.status).toBe(400);
      expect(query.body.details[0].field).toBe('query.limit');
    });

    it('wraps successes and errors in the envelope under /v1', async () => {
      const ok = await suite.http.get('/v1/billing/credits');
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ success: true, data: expect.objectContaining({ balance: expect.any(Number) }) });
      const denied = await api(suite.platform.url).get('/v1/billing/credits');
      expect(denied.status).toBe(401);
      expect(denied.body).toEqual({
        success: false,
        error: { code: 'unauthorized', message: 'Missing bearer token', details: [] },
      });
    });
  });

  describe('billing', () => {
    it('shows the balance and the welcome grant', async () => {
      const user = await registerUser(suite.platform.url);
      const res = await api(suite.platform.url, user.accessToken).get('/api/v1/billing/credits');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        balance: 1000,
        plan: 'enterprise',
        ledger: [
          {
            id: expect.stringMatching(/^led_/),
            type: 'grant',
            amount: 1000,
            balance_after: 1000,
            description: 'Welcome credits',
            created_at: expect.any(String),
          },
        ],
      });
    });

    it('lets the owner purchase credits and fires billing.purchase.completed', async () => {
      const user = await registerUser(suite.platform.url);
      const res = await api(suite.platform.url, user.accessToken).post('/api/v1/billing/purchases', { credits: 500 });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^led_/),
        credits: 500,
        balance: 1500,
        created_at: expect.any(String),
      });
      const credits = await api(suite.platform.url, user.accessToken).get('/api/v1/billing/credits');
      expect(credits.body.balance).toBe(1500);
      expect(credits.body.ledger[0]).toMatchObject({ type: 'purchase', amount: 500, balance_after: 1500 });
      const event = await waitFor(
        () => suite.tap.find('billing.purchase.completed', (e) => e.tenant_id === user.tenantId),
        {
          timeoutMs: 30_000,
          what: 'billing.purchase.completed',
        },
      );
      expect(event.data).toEqual({ purchase_id: res.body.id, credits: 500, balance: 1500 });
    });

    it('refuses purchases with an API key', async () => {
      const key = await createApiKey(suite.platform.url, suite.user.accessToken, ['billing:read']);
      const res = await api(suite.platform.url, key.key).post('/api/v1/billing/purchases', { credits: 10 });
      expect(res.status).toBe(403);
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the first response for a retry and refuses a different body with 409', async () => {
      const user = await registerUser(suite.platform.url);
      const client = api(suite.platform.url, user.accessToken);
      const headers = { 'idempotency-key': 'purchase-0001' };
      const first = await client.post('/api/v1/billing/purchases', { credits: 100 }, { headers });
      expect(first.status).toBe(201);
      const retry = await client.post('/api/v1/billing/purchases', { credits: 100 }, { headers });
      expect(retry.status).toBe(201);
      expect(retry.body).toEqual(first.body);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      // Replayed through /v1 as well, in that prefix's shape.
      const enveloped = await client.post('/v1/billing/purchases', { credits: 100 }, { headers });
      expect(enveloped.body).toEqual({ success: true, data: first.body });

      const changed = await client.post('/api/v1/billing/purchases', { credits: 999 }, { headers });
      expect(changed.status).toBe(409);
      expect(changed.body.error).toBe('conflict');
      expect((await client.get('/api/v1/billing/credits')).body.balance).toBe(1100);
    });

    it('scopes keys per tenant and answers a concurrent duplicate with 409 or the replay', async () => {
      const a = await registerUser(suite.platform.url);
      const b = await registerUser(suite.platform.url);
      const headers = { 'idempotency-key': 'shared-key' };
      const [ra, rb] = await Promise.all([
        api(suite.platform.url, a.accessToken).post('/api/v1/billing/purchases', { credits: 1 }, { headers }),
        api(suite.platform.url, b.accessToken).post('/api/v1/billing/purchases', { credits: 1 }, { headers }),
      ]);
      expect([ra.status, rb.status]).toEqual([201, 201]);
      expect(ra.body.id).not.toBe(rb.body.id);

      const same = { 'idempotency-key': 'race-key' };
      const results = await Promise.all(
        Array.from({ length: 4 }, () =>
          api(suite.platform.url, a.accessToken).post('/api/v1/billing/purchases', { credits: 7 }, { headers: same }),
        ),
      );
      const created = results.filter((r) => r.status === 201);
      expect(created.length).toBeGreaterThanOrEqual(1);
      expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
      for (const r of results.filter((x) => x.status !== 201)) expect(r.status).toBe(409);
      expect((await api(suite.platform.url, a.accessToken).get('/api/v1/billing/credits')).body.balance).toBe(1008);
    });

    it('does not store a failed request, so it can be retried', async () => {
      const user = await registerUser(suite.platform.url);
      const headers = { 'idempotency-key': 'fix-and-retry' };
      const bad = await api(suite.platform.url, user.accessToken).post(
        '/api/v1/auth/api-keys',
        { name: 'k', scopes: ['nope'] },
        { headers },
      );
      expect(bad.status).toBe(422);
      const bad2 = await api(suite.platform.url, user.accessToken).post(
        '/api/v1/auth/api-keys',
        { name: 'k', scopes: ['agents:read'] },
        { headers },
      );
      expect(bad2.status).toBe(201);
    });
  });

  describe('OpenAPI', () => {
    it('serves an OpenAPI 3.1 document generated from the routes', async () => {
      const res = await api(suite.platform.url).get('/api/v1/openapi.json');
      expect(res.status).toBe(200);
      expect(res.body.openapi).toBe('3.1.0');
      const register = res.body.paths['/auth/register'].post;
      expect(register.requestBody.content['application/json'].schema).toMatchObject({
        type: 'object',
        required: ['email', 'password'],
        properties: { email: { type: 'string', format: 'email' } },
      });
      expect(register.responses['422']).toBeDefined();
      expect(res.body.paths['/auth/login'].post.requestBody.content).toHaveProperty([
        'application/x-www-form-urlencoded',
      ]);
      expect(res.body.paths['/auth/api-keys/{key_id}'].delete.parameters).toContainEqual(
        expect.objectContaining({ name: 'key_id', in: 'path', required: true }),
      );
      expect(res.body.paths['/billing/credits'].get['x-access']).toEqual({ scope: 'billing:read' });
      // Every REST operation may answer the per-address (or per-tenant) 429, with Retry-After.
      const operations = Object.entries(res.body.paths).flatMap(([path, methods]) =>
        Object.entries(methods as Record<string, any>)
          .filter(([method]) => method !== 'servers' && path !== '/mcp')
          .map(([method, op]) => [`${method} ${path}`, op.responses['429']?.headers?.['Retry-After'] !== undefined]),
      );
      expect(operations.filter(([, documented]) => !documented)).toEqual([]);
    });

    it('serves the docs page and its assets locally', async () => {
      const page = await api(suite.platform.url).get('/docs');
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(page.text).toContain('/docs/swagger-ui-bundle.js');
      expect(page.text).not.toMatch(/https?:\/\//);
      const bundle = await fetch(`${suite.platform.url}/docs/swagger-ui-bundle.js`);
      expect(bundle.status).toBe(200);
      expect(bundle.headers.get('content-type')).toContain('javascript');
      expect((await bundle.text()).length).toBeGreaterThan(100_000);
    });
  });

  describe('backend down', () => {
    it('answers 503 when identity is down, without a stack trace, and recovers', async () => {
      const identity = suite.platform.service('identity');
      await identity.stop();
      try {
        const res = await api(suite.platform.url).post('/api/v1/auth/register', {
          email: 'down@example.com',
          password: 'password-123',
        });
        expect(res.status).toBe(503);
        expect(res.body.error).toBe('service_unavailable');
        expect(res.text).not.toMatch(/\bat .+\.js:\d+/);
        const me = await api(suite.platform.url, `apk_${'y'.repeat(40)}`).get('/api/v1/auth/me');
        expect(me.status).toBe(503);
      } finally {
        await identity.start();
      }
      await waitFor(async () => (await suite.http.get('/api/v1/auth/me')).status === 200, {
        timeoutMs: 20_000,
        what: 'identity back',
      });
    });
  });
});
