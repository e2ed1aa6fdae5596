import { workflowV1 } from '@agentplatform/contracts';
import { createGrpcClient, openChannel } from '@agentplatform/service-kit';
import {
  EventTap,
  Receiver,
  api,
  drainCredits,
  newTenant,
  startPlatform,
  waitFor,
  type Http,
  type Platform,
} from '@agentplatform/testing';
import { byNode, finished, hookIdOf } from './workflows.support';

/**
 * Workflows through the gateway: every endpoint and state change, each validation rule, the node
 * types against real services (an HTTP server this test runs, an agent in agent-memory), inbound
 * hooks, cancellation, history, statistics, credits and the execution events on Kafka.
 */
describe('workflows through the gateway', () => {
  let platform: Platform;
  let http: Http;
  let tenantId: string;
  let receiver: Receiver;
  let tap: EventTap;

  beforeAll(async () => {
    platform = await startPlatform({ services: ['identity', 'agent-memory', 'workflow'] });
    receiver = await Receiver.start();
    tap = await EventTap.start(platform, 'workflows');
    const tenant = await newTenant(platform);
    http = tenant.http;
    tenantId = tenant.user.tenantId;
  });

  afterAll(async () => {
    await tap?.stop();
    await receiver?.close();
    await platform?.stop();
  });

  const branching = {
    name: 'Order router',
    description: 'Routes orders by amount',
    nodes: [
      { id: 'hook', type: 'webhook', config: { path: 'orders' } },
      {
        id: 'check',
        type: 'condition',
        config: { rules: [{ if: 'input.body.amount > 100', goto: 'big' }, { else: 'small' }] },
      },
      {
        id: 'big',
        type: 'transform',
        config: { fields: { size: '"big"', amount: 'input.body.amount', doubled: 'input.body.amount * 2' } },
      },
      { id: 'small', type: 'transform', config: { fields: { size: '"small"', amount: 'input.body.amount' } } },
    ],
    edges: [
      { source: 'hook', target: 'check' },
      { source: 'check', target: 'big' },
      { source: 'check', target: 'small' },
    ],
  };

  async function create(body: Record<string, unknown>): Promise<any> {
    const res = await http.post('/api/v1/workflows', body);
    expect(res.status).toBe(201);
    return res.body;
  }

  async function execute(workflowId: string, input: Record<string, unknown>, async = false) {
    return http.post(`/api/v1/workflows/${workflowId}/execute`, { input, async });
  }

  describe('lifecycle', () => {
    it('creates a draft with its webhook_url, gets it with statistics, lists it', async () => {
      const created = await create(branching);
      expect(created).toMatchObject({
        id: expect.stringMatching(/^wf_/),
        name: 'Order router',
        description: 'Routes orders by amount',
        status: 'draft',
        trigger_type: 'webhook',
        webhook_url: `${platform.url}/hooks/${hookIdOf(created)}/orders`,
      });
      // The hook URL is its own secret, not the time-sortable workflow id.
      expect(created.webhook_url).not.toContain(created.id);
      expect(new Date(created.created_at).toISOString()).toBe(created.created_at);

      const got = await http.get(`/api/v1/workflows/${created.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({
        id: created.id,
        status: 'draft',
        trigger_type: 'webhook',
        nodes: branching.nodes,
        edges: branching.edges,
        webhook_url: created.webhook_url,
        statistics: { total_runs: 0, success_rate: 0, avg_duration: '0.00s' },
        last_run_at: null,
      });

      const list = await http.get('/api/v1/workflows');
      expect(list.status).toBe(200);
      expect(list.body.total).toBeGreaterThanOrEqual(1);
      expect(list.body.page).toBe(1);
      const item = list.body.items.find((w: { id: string }) => w.id === created.id);
      expect(item).toMatchObject({
        id: created.id,
        name: 'Order router',
        status: 'draft',
        trigger_type: 'webhook',
        last_run_at: null,
      });
    });

    it('a workflow without a webhook node is manual, and its hook URL has no path', async () => {
      const created = await create({ name: 'Manual', nodes: [{ id: 't', type: 'transform' }] });
      expect(created.trigger_type).toBe('manual');
      expect(created.webhook_url).toBe(`${platform.url}/hooks/${hookIdOf(created)}`);
    });

    it('updates name and graph (validated), keeping the other half of the graph', async () => {
      const created = await create(branching);
      const renamed = await http.put(`/api/v1/workflows/${created.id}`, { name: 'Renamed' });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({ id: created.id, name: 'Renamed', status: 'draft', nodes: branching.nodes });
      expect(new Date(renamed.body.updated_at).getTime()).toBeGreaterThanOrEqual(
        new Date(created.updated_at).getTime(),
      );

      const nodes = branching.nodes.map((n) => (n.id === 'hook' ? { ...n, config: { path: 'orders/v2' } } : n));
      const regraphed = await http.put(`/api/v1/workflows/${created.id}`, { nodes });
      expect(regraphed.status).toBe(200);
      expect(regraphed.body.edges).toEqual(branching.edges);
      expect(regraphed.body.webhook_url).toBe(`${platform.url}/hooks/${hookIdOf(created)}/orders/v2`);

      const invalid = await http.put(`/api/v1/workflows/${created.id}`, {
        edges: [{ source: 'hook', target: 'ghost' }],
      });
      expect(invalid.status).toBe(400);
      expect(invalid.body.details).toEqual([{ field: 'edges[0].target', message: "unknown node 'ghost'" }]);
    });

    it('pause and resume move between states; execute is refused when paused; hooks need active', async () => {
      const created = await create(branching);
      const hookUrl = `/hooks/${hookIdOf(created)}/orders`;
      expect((await api(platform.url).post(hookUrl, { amount: 1 })).status).toBe(404); // draft

      const paused = await http.post(`/api/v1/workflows/${created.id}/pause`);
      expect(paused.status).toBe(200);
      expect(paused.body).toEqual({ id: created.id, status: 'paused', updated_at: expect.any(String) });
      const refused = await execute(created.id, { body: { amount: 5 } });
      expect(refused.status).toBe(409);
      expect(refused.body.error).toBe('conflict');
      expect((await api(platform.url).post(hookUrl, { amount: 1 })).status).toBe(404);

      const resumed = await http.post(`/api/v1/workflows/${created.id}/resume`);
      expect(resumed.status).toBe(200);
      expect(resumed.body).toMatchObject({ id: created.id, status: 'active' });
      expect((await http.get(`/api/v1/workflows/${created.id}`)).body.status).toBe('active');

      const again = await http.post(`/api/v1/workflows/${created.id}/pause`);
      expect(again.body.status).toBe('paused');
      await http.post(`/api/v1/workflows/${created.id}/resume`);
    });

    it('deletes a workflow and its history', async () => {
      const created = await create(branching);
      const run = await execute(created.id, { body: { amount: 1 } });
      expect(run.status).toBe(200);
      const deleted = await http.delete(`/api/v1/workflows/${created.id}`);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ success: true, message: 'Workflow deleted' });
      expect((await http.get(`/api/v1/workflows/${created.id}`)).status).toBe(404);
      expect((await http.get(`/api/v1/workflows/${created.id}/executions/${run.body.execution_id}`)).status).toBe(404);
      expect((await http.delete(`/api/v1/workflows/${created.id}`)).status).toBe(404);
    });

    it("hides another tenant's workflows", async () => {
      const created = await create(branching);
      const other = await newTenant(platform);
      expect((await other.http.get(`/api/v1/workflows/${created.id}`)).status).toBe(404);
      expect((await other.http.post(`/api/v1/workflows/${created.id}/execute`, { input: {} })).status).toBe(404);
      expect((await other.http.post(`/api/v1/workflows/${created.id}/pause`)).status).toBe(404);
      expect((await other.http.get('/api/v1/workflows')).body.items).toEqual([]);
    });
  });

  describe('validation', () => {
    const hook = { id: 'hook', type: 'webhook', config: {} };
    const t = (id: string, config: Record<string, unknown> = {}) => ({ id, type: 'transform', config });
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['a missing name', { nodes: [t('a')] }, 'name'],
      ['no nodes', { name: 'x', nodes: [] }, 'nodes'],
      ['a duplicate node id', { name: 'x', nodes: [t('a'), t('a')] }, 'nodes[1].id'],
      ['an unknown node type', { name: 'x', nodes: [{ id: 'a', type: 'teleport', config: {} }] }, 'nodes[0].type'],
      [
        'an unknown config key',
        { name: 'x', nodes: [{ id: 'a', type: 'delay', config: { ms: 1, speed: 2 } }] },
        'nodes[0].config.speed',
      ],
      [
        'an out-of-range config value',
        { name: 'x', nodes: [{ id: 'a', type: 'delay', config: { ms: 300_001 } }] },
        'nodes[0].config.ms',
      ],
      [
        'an unsupported integration',
        { name: 'x', nodes: [{ id: 'a', type: 'integration', config: { service: 'smtp', url: 'https://x.test' } }] },
        'nodes[0].config.service',
      ],
      [
        'an edge to a missing node',
        { name: 'x', nodes: [t('a')], edges: [{ source: 'a', target: 'b' }] },
        'edges[0].target',
      ],
      [
        'a condition target that does not exist',
        {
          name: 'x',
          nodes: [t('a'), { id: 'c', type: 'condition', config: { rules: [{ if: 'true', goto: 'nope' }] } }],
        },
        'nodes[1].config.rules[0].goto',
      ],
      [
        'an expression that does not parse',
        {
          name: 'x',
          nodes: [t('a'), { id: 'c', type: 'condition', config: { rules: [{ if: 'input.amount >', goto: 'a' }] } }],
        },
        'nodes[1].config.rules[0].if',
      ],
      [
        'a transform expression that does not parse',
        { name: 'x', nodes: [t('a', { fields: { total: 'input.(' } })] },
        'nodes[0].config.fields.total',
      ],
      ['two triggers', { name: 'x', nodes: [hook, { ...hook, id: 'hook2' }] }, 'nodes[1].type'],
      [
        'an edge into the trigger',
        { name: 'x', nodes: [t('a'), hook], edges: [{ source: 'a', target: 'hook' }] },
        'edges[0].target',
      ],
      [
        'a cycle',
        {
          name: 'x',
          nodes: [t('a'), t('b'), t('c')],
          edges: [
            { source: 'a', target: 'b' },
            { source: 'b', target: 'c' },
            { source: 'c', target: 'a' },
          ],
        },
        'edges[2]',
      ],
      ['more than 100 nodes', { name: 'x', nodes: Array.from({ length: 101 }, (_, i) => t(`n${i}`)) }, 'nodes'],
      ['a node id of the wrong type', { name: 'x', nodes: [{ id: 5, type: 'transform' }] }, 'nodes[0].id'],
      [
        'an agent that does not exist',
        { name: 'x', nodes: [{ id: 'ask', type: 'agent', config: { agent_id: 'agt_missing' } }] },
        'nodes[0].config.agent_id',
      ],
    ];

    it.each(cases)('refuses %s with a 400 naming the field', async (_label, body, field) => {
      const res = await http.post('/api/v1/workflows', body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_error');
      expect(res.body.details.map((d: { field: string }) => d.field)).toEqual([field]);
      expect(res.body.details[0].message).toEqual(expect.any(String));
    });

    it('answers the same details in the /v1 envelope', async () => {
      const res = await request('/v1/workflows', { name: 'x', nodes: [t('a'), t('a')] });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        success: false,
        error: { code: 'validation_error', details: [{ field: 'nodes[1].id', reason: expect.any(String) }] },
      });
    });

    function request(path: string, body: unknown) {
      return http.post(path, body);
    }
  });

  describe('running', () => {
    it('takes each condition branch and records the other as skipped', async () => {
      const wf = await create(branching);
      const big = await execute(wf.id, { body: { amount: 150 } });
      expect(big.status).toBe(200);
      expect(big.body).toMatchObject({
        execution_id: expect.stringMatching(/^exe_/),
        workflow_id: wf.id,
        status: 'completed',
        trigger: 'manual',
        output: { size: 'big', amount: 150, doubled: 300 },
      });
      expect(big.body.duration_ms).toEqual(expect.any(Number));
      expect(big.body.completed_at).toEqual(expect.any(String));
      const bigNodes = byNode(big.body);
      expect(bigNodes.hook.status).toBe('completed');
      expect(bigNodes.check).toMatchObject({ status: 'completed', output: { branch: 'rules[0]', goto: 'big' } });
      expect(bigNodes.big).toMatchObject({
        status: 'completed',
        output: { size: 'big' },
        started_at: expect.any(String),
        duration_ms: expect.any(Number),
      });
      expect(bigNodes.small).toMatchObject({ status: 'skipped' });

      const small = await execute(wf.id, { body: { amount: 20 } });
      expect(small.body.output).toEqual({ size: 'small', amount: 20 });
      expect(byNode(small.body).big.status).toBe('skipped');
      expect(byNode(small.body).check.output.branch).toBe('else');
    });

    it('counts a rule that cannot be evaluated as not matched, and says why', async () => {
      const nodes = branching.nodes.map((n) =>
        n.id === 'small' ? { ...n, config: { fields: { size: '"small"' } } } : n,
      );
      const wf = await create({ ...branching, nodes });
      const res = await execute(wf.id, { body: { note: 'no amount' } });
      expect(res.body.status).toBe('completed');
      const check = byNode(res.body).check;
      expect(check.output.branch).toBe('else');
      expect(check.output.evaluations[0]).toMatchObject({
        rule: 0,
        matched: false,
        reason: expect.stringMatching(/amount/),
      });
    });

    it('fails the node and the execution on an expression error outside conditions', async () => {
      const wf = await create({
        name: 'bad',
        nodes: [{ id: 't', type: 'transform', config: { fields: { x: 'input.missing + 1' } } }],
      });
      const res = await execute(wf.id, {});
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'failed',
        failed_node_id: 't',
        error: expect.stringMatching(/expression error/),
      });
      expect(byNode(res.body).t.status).toBe('failed');
    });

    it('calls a real HTTP server with templated method, url, headers and body', async () => {
      receiver.on('/orders', {
        status: 201,
        headers: { 'content-type': 'application/json' },
        body: '{"accepted":true,"id":"ord_1"}',
      });
      const wf = await create({
        name: 'notify',
        nodes: [
          { id: 'prep', type: 'transform', config: { fields: { customer: 'input.customer', total: 'input.qty * 3' } } },
          {
            id: 'post',
            type: 'integration',
            config: {
              service: 'http',
              method: 'POST',
              url: `${receiver.url('/orders')}?c={{ customer }}`,
              headers: { 'x-customer': '{{ customer }}', 'x-static': 'yes' },
              body: { customer: '{{ customer }}', total: '{{ total }}', note: 'Total: {{ total }}' },
              timeout_ms: 5_000,
            },
          },
          { id: 'after', type: 'transform', config: { fields: { order: 'nodes.post.body.id', status: 'status' } } },
        ],
        edges: [
          { source: 'prep', target: 'post' },
          { source: 'post', target: 'after' },
        ],
      });
      const res = await execute(wf.id, { customer: 'ada', qty: 4 });
      expect(res.body.status).toBe('completed');
      const [seen] = receiver.to('/orders');
      expect(seen.method).toBe('POST');
      expect(seen.headers['x-customer']).toBe('ada');
      expect(seen.headers['x-static']).toBe('yes');
      expect(seen.headers['content-type']).toBe('application/json');
      expect(JSON.parse(seen.body)).toEqual({ customer: 'ada', total: 12, note: 'Total: 12' });
      expect(byNode(res.body).post.output).toMatchObject({ status: 201, body: { accepted: true, id: 'ord_1' } });
      expect(res.body.output).toEqual({ order: 'ord_1', status: 201 });
    });

    it('retries a failing node with backoff, and fails after the last attempt', async () => {
      receiver.on('/flaky', (_req, index) => ({ status: index < 2 ? 503 : 200, body: 'ok' }));
      const node = (path: string) => ({
        id: 'call',
        type: 'integration',
        config: { service: 'http', method: 'GET', url: receiver.url(path) },
        retry: { max_attempts: 3, backoff_ms: 20 },
      });
      const flaky = await create({ name: 'flaky', nodes: [node('/flaky')] });
      const ok = await execute(flaky.id, {});
      expect(ok.body.status).toBe('completed');
      expect(byNode(ok.body).call).toMatchObject({ status: 'completed', attempts: 3 });

      receiver.on('/down', { status: 500, body: 'boom' });
      const down = await create({ name: 'down', nodes: [node('/down')] });
      const failed = await execute(down.id, {});
      expect(failed.body).toMatchObject({
        status: 'failed',
        failed_node_id: 'call',
        error: expect.stringMatching(/answered 500/),
      });
      expect(byNode(failed.body).call).toMatchObject({
        status: 'failed',
        attempts: 3,
        output: { status: 500, body: 'boom' },
      });
      expect(receiver.to('/down')).toHaveLength(3);
    });

    it('times a node out', async () => {
      const wf = await create({
        name: 'slow',
        nodes: [{ id: 'wait', type: 'delay', config: { ms: 5_000 }, timeout_ms: 200 }],
      });
      const res = await execute(wf.id, {});
      expect(res.body).toMatchObject({ status: 'failed', failed_node_id: 'wait' });
      expect(byNode(res.body).wait.error).toMatch(/timed out after 200 ms/);
    });

    it('chats with an agent through agent-memory', async () => {
      const agent = await http.post('/api/v1/agents', { name: 'Helper', type: 'assistant' });
      expect(agent.status).toBe(201);
      const wf = await create({
        name: 'ask',
        nodes: [
          { id: 'hook', type: 'webhook' },
          {
            id: 'ask',
            type: 'agent',
            config: {
              agent_id: agent.body.id,
              message: 'Customer {{ input.body.name }} asks: {{ input.body.question }}',
            },
          },
          {
            id: 'reply',
            type: 'transform',
            config: { fields: { answer: 'content', session: 'nodes.ask.session_id' } },
          },
        ],
        edges: [
          { source: 'hook', target: 'ask' },
          { source: 'ask', target: 'reply' },
        ],
      });
      const res = await execute(wf.id, { body: { name: 'Ada', question: 'What are your opening hours?' } });
      expect(res.body.status).toBe('completed');
      const ask = byNode(res.body).ask;
      expect(ask.output).toMatchObject({
        message_id: expect.any(String),
        session_id: expect.any(String),
        content: expect.any(String),
        role: 'assistant',
        usage: { total_tokens: expect.any(Number) },
      });
      expect(ask.output.content.length).toBeGreaterThan(0);
      expect(res.body.output).toEqual({ answer: ask.output.content, session: ask.output.session_id });
    });

    it('answers 202 running for async, and the execution finishes on its own', async () => {
      const wf = await create({
        name: 'async',
        nodes: [
          { id: 'w', type: 'delay', config: { ms: 300 } },
          { id: 't', type: 'transform', config: { fields: { ok: 'true' } } },
        ],
        edges: [{ source: 'w', target: 't' }],
      });
      const res = await execute(wf.id, { x: 1 }, true);
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({
        execution_id: expect.any(String),
        workflow_id: wf.id,
        status: 'running',
        started_at: expect.any(String),
      });
      const done = await finished(http, wf.id, res.body.execution_id);
      expect(done).toMatchObject({ status: 'completed', output: { ok: true } });
    });

    it('cancels a running execution, abandoning its in-flight node', async () => {
      const wf = await create({
        name: 'long',
        nodes: [
          { id: 'w', type: 'delay', config: { ms: 20_000 } },
          { id: 't', type: 'transform' },
        ],
        edges: [{ source: 'w', target: 't' }],
      });
      const started = await execute(wf.id, {}, true);
      const id = started.body.execution_id;
      const cancelled = await http.post(`/api/v1/workflows/${wf.id}/executions/${id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toMatchObject({ execution_id: id, status: 'cancelled', completed_at: expect.any(String) });
      // A retry of the cancel (its answer lost) is answered with the cancelled execution, not a 409.
      const again = await http.post(`/api/v1/workflows/${wf.id}/executions/${id}/cancel`);
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({
        execution_id: id,
        status: 'cancelled',
        completed_at: cancelled.body.completed_at,
      });
      const later = await http.get(`/api/v1/workflows/${wf.id}/executions/${id}`);
      expect(later.body.status).toBe('cancelled');
      expect(byNode(later.body).t).toBeUndefined();
      const failedEvent = await tap.wait('workflow.execution.failed', (e) => e.data.execution_id === id);
      expect(failedEvent.data.error).toBe('execution cancelled');
    });

    it('charges one credit per run and answers 402 when the balance is gone', async () => {
      const wf = await create(branching);
      const before = (await http.get('/api/v1/billing/credits')).body.balance;
      await execute(wf.id, { body: { amount: 1 } });
      const after = (await http.get('/api/v1/billing/credits')).body.balance;
      expect(after).toBe(before - 1);

      const poor = await newTenant(platform);
      await drainCredits(platform, poor.user.tenantId);
      const poorWf = (await poor.http.post('/api/v1/workflows', { name: 'p', nodes: [{ id: 't', type: 'transform' }] }))
        .body;
      const refused = await poor.http.post(`/api/v1/workflows/${poorWf.id}/execute`, { input: {} });
      expect(refused.status).toBe(402);
      expect(refused.body.error).toBe('insufficient_credits');
    });
  });

  describe('hooks', () => {
    it('starts an execution with {body, query, headers}, dropping credentials, and answers 202', async () => {
      const wf = await create(branching);
      await http.post(`/api/v1/workflows/${wf.id}/resume`);
      const res = await api(platform.url).post(
        `/hooks/${hookIdOf(wf)}/orders?source=shop`,
        { amount: 500 },
        {
          headers: { authorization: 'Bearer secret-token', cookie: 'session=abc', 'x-shop': 'north' },
        },
      );
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ execution_id: expect.stringMatching(/^exe_/) });
      const done = await finished(http, wf.id, res.body.execution_id);
      expect(done).toMatchObject({ status: 'completed', trigger: 'webhook', output: { size: 'big', amount: 500 } });
      expect(done.input.body).toEqual({ amount: 500 });
      expect(done.input.query).toEqual({ source: 'shop' });
      expect(done.input.headers['x-shop']).toBe('north');
      expect(done.input.headers.authorization).toBeUndefined();
      expect(done.input.headers.cookie).toBeUndefined();
    });

    it('answers 404 for a wrong path, an unknown workflow, and a paused one', async () => {
      const wf = await create(branching);
      await http.post(`/api/v1/workflows/${wf.id}/resume`);
      const anon = api(platform.url);
      expect((await anon.post(`/hooks/${hookIdOf(wf)}`, {})).status).toBe(404);
      expect((await anon.post(`/hooks/${hookIdOf(wf)}/other`, {})).status).toBe(404);
      expect((await anon.post(`/hooks/hk_${'0'.repeat(32)}`, {})).status).toBe(404);
      await http.post(`/api/v1/workflows/${wf.id}/pause`);
      const paused = await anon.post(`/hooks/${hookIdOf(wf)}/orders`, { amount: 1 });
      expect(paused.status).toBe(404);
      expect(paused.body.error).toBe('not_found');
    });

    it('answers with the output when the webhook node asks for last_node', async () => {
      const wf = await create({
        name: 'sync hook',
        nodes: [
          { id: 'hook', type: 'webhook', config: { response_mode: 'last_node' } },
          { id: 't', type: 'transform', config: { fields: { greeting: '"hello " + input.body.name' } } },
        ],
        edges: [{ source: 'hook', target: 't' }],
      });
      await http.post(`/api/v1/workflows/${wf.id}/resume`);
      const res = await api(platform.url).post(`/hooks/${hookIdOf(wf)}`, { name: 'Ada' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        execution_id: expect.any(String),
        status: 'completed',
        output: { greeting: 'hello Ada' },
      });
    });

    it('answers hooks that arrive together each on its own: accepted, refused, and slow ones holding up none', async () => {
      const wf = await create({
        name: 'sync router',
        nodes: [
          { id: 'hook', type: 'webhook', config: { path: 'orders', response_mode: 'last_node' } },
          {
            id: 'check',
            type: 'condition',
            config: { rules: [{ if: 'input.body.slow', goto: 'wait' }, { else: 'echo' }] },
          },
          { id: 'wait', type: 'delay', config: { ms: 3_000 } },
          { id: 'echo', type: 'transform', config: { fields: { amount: 'input.body.amount' } } },
        ],
        edges: [
          { source: 'hook', target: 'check' },
          { source: 'check', target: 'wait' },
          { source: 'check', target: 'echo' },
        ],
      });
      await http.post(`/api/v1/workflows/${wf.id}/resume`);
      const anon = api(platform.url);
      // Open the connections first, so that the hooks below are all sent at once and reach the
      // gateway together (which sends them to the workflow service in one call).
      await Promise.all(Array.from({ length: 18 }, () => anon.get('/healthz')));
      const answeredAt = (res: Promise<any>) => res.then((r) => ({ ...r, at: Date.now() }));
      const slow = [1, 2].map(() => answeredAt(anon.post(`/hooks/${hookIdOf(wf)}/orders`, { slow: true, amount: 0 })));
      const fast = Array.from({ length: 12 }, (_, i) =>
        answeredAt(
          anon.post(
            `/hooks/${hookIdOf(wf)}/orders`,
            { slow: false, amount: i },
            { headers: { 'x-request-id': `hook-together-${i}` } },
          ),
        ),
      );
      const refused = Array.from({ length: 4 }, () =>
        answeredAt(anon.post(`/hooks/${hookIdOf(wf)}/elsewhere`, { amount: 1 })),
      );

      const quick = await Promise.all([...fast, ...refused]);
      for (const res of quick.slice(12)) expect(res.status).toBe(404);
      const runs = quick.slice(0, 12);
      // Each hook ran with its own body and answered its own output, under its own request id.
      for (const [i, res] of runs.entries()) {
        expect(res).toMatchObject({ status: 200, body: { status: 'completed', output: { amount: i } } });
        const started = await tap.wait(
          'workflow.execution.started',
          (e) => e.data.execution_id === res.body.execution_id,
        );
        expect(started.request_id).toBe(`hook-together-${i}`);
      }
      expect(new Set(runs.map((r) => r.body.execution_id)).size).toBe(12);
      const waited = await Promise.all(slow);
      for (const res of waited) expect(res).toMatchObject({ status: 200, body: { status: 'completed' } });
      expect(Math.max(...quick.map((r) => r.at))).toBeLessThan(Math.min(...waited.map((r) => r.at)));
    });
    it('has the workflow service refuse a TriggerHooks call of more hooks than it takes, naming the field', async () => {
      const channel = openChannel(`127.0.0.1:${platform.service('workflow').ready!.grpc_port}`);
      try {
        const client = createGrpcClient(workflowV1.WorkflowServiceDefinition, channel, { deadlineMs: 10_000 });
        const hooks = Array.from({ length: 257 }, () => ({
          workflowId: 'wf_00000000000000000000000000',
          path: '',
          requestId: '',
        }));
        const consume = async () => {
          for await (const _answer of client.triggerHooks({ hooks })) {
            // nothing is expected
          }
        };
        await expect(consume()).rejects.toMatchObject({ code: 'validation_error', details: [{ field: 'hooks' }] });
      } finally {
        channel.close();
      }
    });
  });

  describe('history, statistics and events', () => {
    it('lists executions newest first with limit, status filter and total; statistics; last_run_at; events', async () => {
      const wf = await create({
        name: 'stats',
        nodes: [
          {
            id: 'check',
            type: 'condition',
            config: { rules: [{ if: 'input.ok == true', goto: 'fine' }, { else: 'boom' }] },
          },
          { id: 'fine', type: 'transform', config: { fields: { ok: 'true' } } },
          { id: 'boom', type: 'transform', config: { fields: { x: 'input.nothing.here' } } },
        ],
        edges: [],
      });
      const runs: any[] = [];
      for (const ok of [true, true, true, false]) runs.push((await execute(wf.id, { ok })).body);
      expect(runs.map((r) => r.status)).toEqual(['completed', 'completed', 'completed', 'failed']);

      const all = await http.get(`/api/v1/workflows/${wf.id}/executions?limit=2`);
      expect(all.status).toBe(200);
      expect(all.body.total).toBe(4);
      expect(all.body.items.map((i: { execution_id: string }) => i.execution_id)).toEqual([
        runs[3].execution_id,
        runs[2].execution_id,
      ]);
      expect(all.body.items[0]).toMatchObject({
        status: 'failed',
        duration_ms: expect.any(Number),
        started_at: expect.any(String),
      });

      const failed = await http.get(`/api/v1/workflows/${wf.id}/executions?status=failed`);
      expect(failed.body.total).toBe(1);
      expect(failed.body.items.map((i: { execution_id: string }) => i.execution_id)).toEqual([runs[3].execution_id]);
      expect((await http.get(`/api/v1/workflows/${wf.id}/executions?status=bogus`)).status).toBe(400);

      const got = await http.get(`/api/v1/workflows/${wf.id}`);
      expect(got.body.statistics).toEqual({
        total_runs: 4,
        success_rate: 0.75,
        avg_duration: expect.stringMatching(/^\d+\.\d{2}s$/),
      });
      expect(got.body.last_run_at).toBe(runs[3].started_at);
      const list = await http.get('/api/v1/workflows?per_page=100');
      expect(list.body.items.find((w: { id: string }) => w.id === wf.id).last_run_at).toBe(runs[3].started_at);

      const started = await tap.wait('workflow.execution.started', (e) => e.data.execution_id === runs[0].execution_id);
      expect(started).toMatchObject({ tenant_id: tenantId, data: { workflow_id: wf.id, trigger: 'manual' } });
      const completed = await tap.wait(
        'workflow.execution.completed',
        (e) => e.data.execution_id === runs[0].execution_id,
      );
      expect(completed.data).toMatchObject({
        workflow_id: wf.id,
        output: { ok: true },
        duration_ms: expect.any(Number),
      });
      const failedEvent = await tap.wait(
        'workflow.execution.failed',
        (e) => e.data.execution_id === runs[3].execution_id,
      );
      expect(failedEvent.data).toMatchObject({
        workflow_id: wf.id,
        failed_node_id: 'boom',
        error: expect.stringMatching(/expression error/),
      });
      // Exactly one start and one end per run.
      await waitFor(
        () =>
          tap.filter((e) => (e.data as { execution_id?: string }).execution_id === runs[1].execution_id).length === 2,
      );
    });
  });
});
