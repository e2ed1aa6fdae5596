import { randomBytes } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { MongoClient } from 'mongodb';
import { api, newTenant, request, startPlatform, suiteFixture, waitFor, type Http } from '@agentplatform/testing';

/** A hook id of the right shape that no workflow has. */
const randomHookId = () =>
  `hk_${randomBytes(24)
    .toString('base64')
    .replace(/[^0-9A-Za-z]/g, '')
    .padEnd(32, '0')
    .slice(0, 32)}`;

/** Just under the 1 MiB body limit. */
const BODY_BYTES = 1024 * 1024 - 1024;

/** A megabyte of nested arrays: far deeper than the 64 levels a body may have. */
const NESTED = '['.repeat(BODY_BYTES / 2) + ']'.repeat(BODY_BYTES / 2);

/**
 * Thirty requests from one budget (a burst of 20, then one a second): the first 20 get `allowed`,
 * and of the rest only as many as the seconds they took refilled, however loaded the machine.
 */
function expectBudgetSpent(answers: ReadonlyArray<{ status: number }>, allowed: number, elapsedMs: number): void {
  expect(answers.slice(0, 20).map((a) => a.status)).toEqual(Array(20).fill(allowed));
  const refilled = Math.ceil(elapsedMs / 1000);
  expect(answers.filter((a) => a.status === allowed).length).toBeLessThanOrEqual(20 + refilled);
  expect(answers.filter((a) => a.status !== allowed).every((a) => a.status === 429)).toBe(true);
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

/**
 * Hostile bodies, hooks and addresses (docs/security.md): deeply nested JSON and refused keys are
 * answered 400 in linear time before anything else reads the body; unknown hook ids write no
 * rate-limit counter and draw from the per-address budget; IPv6 clients are counted by their /64.
 * The gateway trusts one proxy hop, so each test speaks from addresses of its own.
 */
describe('hostile input at the gateway edge', () => {
  const platform = suiteFixture(() =>
    startPlatform({ services: ['identity', 'workflow'], serviceEnv: { gateway: { TRUSTED_PROXY_HOPS: '1' } } }),
  );
  let mongo: MongoClient;

  beforeAll(async () => {
    mongo = await MongoClient.connect(platform.mongoUri);
  });

  afterAll(async () => {
    await mongo?.close();
  });

  const from = (address: string) => ({ 'x-forwarded-for': address });

  /** An active workflow's hook: its owner's client, the workflow id and the hook's URL path. */
  async function activeHook(): Promise<{ http: Http; workflowId: string; hookPath: string }> {
    const { http } = await newTenant(platform);
    const created = await http.post('/api/v1/workflows', {
      name: 'hooked',
      nodes: [{ id: 'hook', type: 'webhook', config: {} }],
      edges: [],
    });
    expect(created.status).toBe(201);
    expect((await http.post(`/api/v1/workflows/${created.body.id}/resume`)).status).toBe(200);
    return { http, workflowId: created.body.id, hookPath: new URL(created.body.webhook_url).pathname };
  }

  /** A JSON POST to a hook path from an address, answered as `request` answers. */
  const postHook = (path: string, raw: string, address: string) =>
    request(platform.url, 'POST', path, undefined, {
      raw,
      headers: { 'content-type': 'application/json', ...from(address) },
    });

  /**
   * Announces a megabyte of JSON, sends 64 KiB of it and waits for the answer: one that comes can
   * only have been decided on the headers, the rest of the body still unsent.
   */
  async function answeredMidUpload(path: string, headers: Record<string, string>) {
    const upload = httpRequest(`${platform.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': BODY_BYTES, ...headers },
    });
    const answered = new Promise<IncomingMessage>((resolve, reject) => {
      upload.once('response', resolve);
      upload.once('error', reject);
      // A gateway that reads the body first waits for the rest of it: no answer ever comes.
      setTimeout(() => reject(new Error(`no answer from ${path} while the body was still unsent`)), 10_000).unref();
    });
    upload.write(NESTED.slice(0, 64 * 1024));
    const response = await answered;
    let text = '';
    for await (const chunk of response) text += String(chunk);
    upload.destroy();
    return { status: response.statusCode, connection: response.headers.connection, text };
  }

  describe('bodies', () => {
    it('a request refused on its headers is answered before its body is read, on any route', async () => {
      // Bad credentials on an authenticated route, an MCP call with none, a path nothing serves.
      const refusals = [
        ['/api/v1/memory', { authorization: 'Bearer not-a-token' }, 401],
        ['/mcp', {}, 401],
        ['/api/v1/no-such-route', {}, 404],
      ] as const;
      for (const [path, headers, status] of refusals) {
        const response = await answeredMidUpload(path, { ...headers, ...from('192.0.2.40') });
        expect({ path, status: response.status, connection: response.connection }).toEqual({
          path,
          status,
          connection: 'close',
        });
      }
    });

    it('a megabyte of nested arrays or objects to a live hook is 400 at once; /healthz stays fast', async () => {
      const { hookPath } = await activeHook();
      const levels = Math.floor(BODY_BYTES / 6);
      const objects = '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
      const attack = (raw: string, i: number) => timed(() => postHook(hookPath, raw, `192.0.2.${10 + i}`));
      // The bound is what a user would notice, with room for a loaded CI machine running other
      // suites at once: a second, or 20 times the same /healthz asked alone just before, on a warm
      // connection (before this fix, 40 KB of such a body held the gateway for 2 s, 12 s on such a
      // machine, and a megabyte for minutes).
      let alone = Infinity;
      for (let i = 0; i < 3; i++)
        alone = Math.min(alone, (await timed(() => request(platform.url, 'GET', '/healthz'))).ms);
      const bound = Math.max(1000, 20 * alone);
      const [arraysAnswer, objectsAnswer, health] = await Promise.all([
        attack(NESTED, 0),
        attack(objects, 1),
        // The bystander asks while the bodies arrive.
        (async () => {
          await new Promise((resolve) => setTimeout(resolve, 20));
          return timed(() => request(platform.url, 'GET', '/healthz'));
        })(),
      ]);
      for (const answer of [arraysAnswer, objectsAnswer]) {
        expect(answer.value.status).toBe(400);
        expect(answer.value.body).toEqual({
          error: 'validation_error',
          message: 'JSON nests deeper than the limit of 64 levels',
          details: [{ field: 'body', message: 'nests more than 64 levels of objects and arrays' }],
        });
        expect(answer.ms).toBeLessThan(bound);
      }
      expect(health.value.status).toBe(200);
      expect(health.ms).toBeLessThan(bound);
    });

    it('64 levels are a body, 65 are not, even inside a field the route ignores', async () => {
      const { http } = await newTenant(platform);
      const nest = (levels: number): unknown => {
        let value: unknown = 1;
        for (let i = 0; i < levels; i++) value = { a: value };
        return value;
      };
      // The body object itself is the first level.
      const workflow = { name: 'deep', nodes: [{ id: 'hook', type: 'webhook', config: {} }], edges: [] };
      const fits = await http.post('/api/v1/workflows', { ...workflow, ignored: nest(63) });
      expect(fits.status).toBe(201);
      const deeper = await http.post('/api/v1/workflows', { ...workflow, ignored: nest(64) });
      expect(deeper.status).toBe(400);
      expect(deeper.body.details).toEqual([
        { field: 'body', message: 'nests more than 64 levels of objects and arrays' },
      ]);
    });

    it('valid JSON with a refused key names the key and the rule, not "Malformed JSON body"', async () => {
      const { http } = await newTenant(platform);
      const proto = await http.post('/api/v1/workflows', undefined, {
        raw: '{"name":"x","nodes":[],"extra":{"list":[{"__proto__":{"admin":true}}]}}',
        headers: { 'content-type': 'application/json' },
      });
      expect(proto.status).toBe(400);
      expect(proto.body).toEqual({
        error: 'validation_error',
        message: 'Request validation failed',
        details: [{ field: 'extra.list[0].__proto__', message: 'is a reserved name (__proto__)' }],
      });
      const control = await http.post('/api/v1/workflows', { name: 'x', nodes: [], extra: { 'tab\tkey': 1 } });
      expect(control.status).toBe(400);
      expect(control.body.details).toEqual([
        { field: 'extra.tab\\u0009key', message: 'must not contain a control character (U+0000 to U+001F)' },
      ]);
      const enveloped = await http.post('/v1/workflows', undefined, {
        raw: '{"__proto__":1}',
        headers: { 'content-type': 'application/json' },
      });
      expect(enveloped.status).toBe(400);
      expect(enveloped.body.error.details).toEqual([
        { field: '__proto__', reason: 'invalid_value', message: 'is a reserved name (__proto__)' },
      ]);
    });
  });

  describe('hooks', () => {
    it('unknown hook ids write no counter and draw from the address budget; real hooks still answer', async () => {
      const { hookPath: hookUrl } = await activeHook();
      const counters = mongo.db(platform.gatewayDatabase).collection('rate_limits');
      const hookCounters = async () =>
        (await counters.find({}).toArray()).filter((c) => String(c.key).startsWith('hook:')).length;
      const countersBefore = await hookCounters();

      const { value: answers, ms } = await timed(async () => {
        const answers = [];
        for (let i = 0; i < 30; i++) {
          answers.push(
            await request(platform.url, 'POST', `/hooks/${randomHookId()}`, { i }, { headers: from('198.51.100.7') }),
          );
        }
        return answers;
      });
      expectBudgetSpent(answers, 404, ms);
      const limited = answers.find((a) => a.status === 429)!;
      expect(limited.body).toEqual({
        error: 'rate_limit_exceeded',
        message: expect.any(String),
        retry_after: expect.any(Number),
      });
      expect(limited.headers.get('retry-after')).toBe(String(limited.body.retry_after));
      // The limited address is refused even with the right hook id; another address is not.
      expect((await request(platform.url, 'POST', hookUrl, {}, { headers: from('198.51.100.7') })).status).toBe(429);
      const real = await request(platform.url, 'POST', hookUrl, { ok: true }, { headers: from('198.51.100.8') });
      expect(real.status).toBe(202);
      expect(real.headers.get('x-ratelimit-limit')).toBe('600');
      // Only the real hook got a counter.
      expect(await hookCounters()).toBe(countersBefore + 1);
    });

    it('an unknown hook id is 404 before its body is read: not parsed, answered mid-upload, connection closed', async () => {
      // Bodies that would be a 400 if they were read: the id is refused first.
      const deep = await postHook(`/hooks/${randomHookId()}`, NESTED, '192.0.2.30');
      expect(deep.status).toBe(404);
      expect(deep.body).toEqual({ error: 'not_found', message: 'Hook not found' });
      expect(deep.headers.get('connection')).toBe('close');
      expect((await postHook(`/hooks/${randomHookId()}/orders`, '{"broken":', '192.0.2.30')).status).toBe(404);
      expect((await postHook('/hooks/not-a-hook-id', '{"broken":', '192.0.2.30')).status).toBe(404);

      // A megabyte announced, one chunk of it sent: the answer comes while the rest is still unsent.
      const response = await answeredMidUpload(`/hooks/${randomHookId()}`, from('192.0.2.31'));
      expect(response.status).toBe(404);
      expect(response.connection).toBe('close');
      expect(JSON.parse(response.text)).toEqual({ error: 'not_found', message: 'Hook not found' });
    });

    it('a live hook reads its body (400 malformed, 202 good); paused or rotated, its id is 404 before the body', async () => {
      const { http, workflowId, hookPath } = await activeHook();
      const address = '192.0.2.40';
      const malformed = await postHook(hookPath, '{"broken":', address);
      expect(malformed.status).toBe(400);
      expect(malformed.body.details).toEqual([{ field: 'body', message: 'is not valid JSON' }]);
      const good = await postHook(hookPath, '{"order":1}', address);
      expect(good.status).toBe(202);
      expect(good.body).toEqual({ execution_id: expect.stringMatching(/^exe_/) });

      expect((await http.post(`/api/v1/workflows/${workflowId}/pause`)).status).toBe(200);
      expect((await postHook(hookPath, '{"order":2}', address)).status).toBe(404);
      expect((await http.post(`/api/v1/workflows/${workflowId}/resume`)).status).toBe(200);
      const rotated = await http.post(`/api/v1/workflows/${workflowId}/hook/rotate`, {});
      expect(rotated.status).toBe(200);
      // The old URL stops starting runs at once (TriggerHook reads the hook) ...
      expect((await postHook(hookPath, '{"order":3}', '192.0.2.41')).status).toBe(404);
      // ... and once the gateway's few seconds of memory of it have passed, it is refused unread.
      await waitFor(async () => (await postHook(hookPath, '{"broken":', '192.0.2.42')).status === 404, {
        timeoutMs: 15_000,
        intervalMs: 250,
        what: 'the rotated-out hook id refused before its body',
      });
      const fresh = await postHook(new URL(rotated.body.webhook_url).pathname, '{"order":4}', '192.0.2.43');
      expect(fresh.status).toBe(202);
    });

    it('IPv6 clients are counted by their /64: rotating addresses inside it does not escape', async () => {
      const { value: answers, ms } = await timed(async () => {
        const answers = [];
        for (let i = 1; i <= 30; i++) {
          answers.push(
            await request(platform.url, 'GET', '/api/v1/agents', undefined, {
              headers: from(`2001:db8:aa:bb:${i.toString(16)}::${i.toString(16)}`),
            }),
          );
        }
        return answers;
      });
      expectBudgetSpent(answers, 401, ms);
      // The next /64 has a budget of its own.
      const neighbour = await api(platform.url).get('/api/v1/agents', { headers: from('2001:db8:aa:bc::1') });
      expect(neighbour.status).toBe(401);
    });
  });
});
