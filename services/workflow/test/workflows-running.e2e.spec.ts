import {
  drainCredits,
  newTenant,
  type EventTap,
  type Http,
  type Platform,
  type Receiver,
  suiteFixture,
} from '@agentplatform/testing';
import { branching, byNode, finished, startGatewayWorkflows, STARTUP_MS } from './workflows.support';

/**
 * Workflow runs through the gateway: the node types against real services (an HTTP server this
 * test runs, an agent in agent-memory), retries, timeouts, async runs, cancellation and credits.
 */
describe('workflow runs through the gateway', () => {
  const world = suiteFixture(() => startGatewayWorkflows('workflows-running'), STARTUP_MS);
  let platform: Platform;
  let http: Http;
  let receiver: Receiver;
  let tap: EventTap;

  beforeAll(() => {
    ({ platform, http, receiver, tap } = world);
  });

  const create = (body: Record<string, unknown>) => world.create(body);
  const execute = (workflowId: string, input: Record<string, unknown>, async = false) =>
    world.execute(workflowId, input, async);

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
});
