import { workflowV1 } from '@agentplatform/contracts';
import { createGrpcClient, openChannel } from '@agentplatform/service-kit';
import { api, type EventTap, type Http, type Platform, suiteFixture, waitFor } from '@agentplatform/testing';
import { branching, finished, hookIdOf, startGatewayWorkflows, STARTUP_MS } from './workflows.support';

/**
 * Inbound hooks, and the history, statistics and execution events on Kafka of the runs they and
 * the API start.
 */
describe('workflow hooks, history and events', () => {
  const world = suiteFixture(() => startGatewayWorkflows('workflows-hooks'), STARTUP_MS);
  let platform: Platform;
  let http: Http;
  let tenantId: string;
  let tap: EventTap;

  beforeAll(() => {
    ({ platform, http, tenantId, tap } = world);
  });

  const create = (body: Record<string, unknown>) => world.create(body);
  const execute = (workflowId: string, input: Record<string, unknown>, async = false) =>
    world.execute(workflowId, input, async);

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
