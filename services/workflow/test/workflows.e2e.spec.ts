import { api, newTenant, suiteFixture, type Http, type Platform } from '@agentplatform/testing';
import { branching, hookIdOf, startGatewayWorkflows, STARTUP_MS } from './workflows.support';

/**
 * Workflows through the gateway: every endpoint and state change and each validation rule (the
 * node types, hooks and history are in workflows-running, workflows-hooks).
 */
describe('workflows through the gateway', () => {
  const world = suiteFixture(() => startGatewayWorkflows('workflows'), STARTUP_MS);
  let platform: Platform;
  let http: Http;

  beforeAll(() => {
    ({ platform, http } = world);
  });

  const create = (body: Record<string, unknown>) => world.create(body);
  const execute = (workflowId: string, input: Record<string, unknown>, async = false) =>
    world.execute(workflowId, input, async);

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
});
