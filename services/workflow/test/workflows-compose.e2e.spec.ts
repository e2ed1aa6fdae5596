import { EventTap, newTenant, startPlatform, waitFor, type Http, type Platform } from '@agentplatform/testing';
import { CountingServer } from './compose.support';
import { byNode, finished } from './workflows.support';

/**
 * Composition, versions and retry through the gateway against the real services (issue 18):
 * workflow and foreach nodes run child executions linked to their parent, nesting is bounded,
 * cancelling a parent cancels its children, a running execution keeps the version it started
 * with, and a retry resumes at the failed node without repeating the completed ones.
 */
describe('workflow composition, versions and retry', () => {
  let platform: Platform;
  let http: Http;
  let server: CountingServer;
  let tap: EventTap;

  beforeAll(async () => {
    platform = await startPlatform({
      services: ['identity', 'workflow'],
      serviceEnv: {
        identity: { WELCOME_CREDITS: '5000' },
        // Short leases so a killed replica's executions move within seconds (the crash test).
        workflow: { EXECUTION_LEASE_MS: '2000', EXECUTION_POLL_INTERVAL_MS: '200' },
      },
    });
    server = await CountingServer.start();
    tap = await EventTap.start(platform, 'workflows-compose');
    http = (await newTenant(platform)).http;
  });

  afterAll(async () => {
    await tap?.stop();
    await server?.close();
    await platform?.stop();
  });

  async function create(body: Record<string, unknown>, as: Http = http): Promise<any> {
    const res = await as.post('/api/v1/workflows', body);
    expect(res.status).toBe(201);
    return res.body;
  }

  async function startAsync(workflowId: string, input: Record<string, unknown> = {}): Promise<string> {
    const res = await http.post(`/api/v1/workflows/${workflowId}/execute`, { input, async: true });
    expect(res.status).toBe(202);
    return res.body.execution_id;
  }

  async function executions(workflowId: string): Promise<any[]> {
    const res = await http.get(`/api/v1/workflows/${workflowId}/executions?limit=100`);
    expect(res.status).toBe(200);
    return res.body.items;
  }

  describe('composition', () => {
    it('runs a sub-workflow and outputs its output; the child links to its parent', async () => {
      const child = await create({
        name: 'double',
        nodes: [
          { id: 'calc', type: 'transform', config: { fields: { doubled: 'input.n * 2', label: 'input.label' } } },
        ],
      });
      const parent = await create({
        name: 'caller',
        nodes: [
          { id: 'prep', type: 'transform', config: { fields: { x: 'input.x + 1' } } },
          {
            id: 'sub',
            type: 'workflow',
            config: { workflow_id: child.id, input: { n: '{{ x }}', label: 'hi' } },
          },
          {
            id: 'after',
            type: 'transform',
            config: { fields: { result: 'doubled', label: 'label' } },
          },
        ],
        edges: [
          { source: 'prep', target: 'sub' },
          { source: 'sub', target: 'after' },
        ],
      });
      const res = await http.post(`/api/v1/workflows/${parent.id}/execute`, { input: { x: 20 } });
      expect(res.status).toBe(200);
      expect(res.body.error).toBeUndefined();
      expect(res.body).toMatchObject({ status: 'completed', output: { result: 42, label: 'hi' } });
      expect(byNode(res.body).sub.output).toEqual({ doubled: 42, label: 'hi' });

      const [run] = await executions(child.id);
      expect(run).toMatchObject({ status: 'completed', parent_execution_id: res.body.execution_id });
      const detail = await http.get(`/api/v1/workflows/${child.id}/executions/${run.execution_id}`);
      expect(detail.body).toMatchObject({
        input: { n: 21, label: 'hi' },
        parent_execution_id: res.body.execution_id,
        parent_node_id: 'sub',
      });
    });

    it('refuses a workflow that calls itself, an unknown workflow and another tenant’s', async () => {
      const wf = await create({ name: 'self', nodes: [{ id: 't', type: 'transform' }] });
      const self = await http.put(`/api/v1/workflows/${wf.id}`, {
        nodes: [{ id: 'me', type: 'workflow', config: { workflow_id: wf.id } }],
        edges: [],
      });
      expect(self.status).toBe(400);
      expect(self.body.details).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ field: 'nodes[0].config.workflow_id', message: expect.stringMatching(/itself/) }),
        ]),
      );

      const unknown = await http.post('/api/v1/workflows', {
        name: 'unknown',
        nodes: [{ id: 'each', type: 'foreach', config: { workflow_id: 'wf_nope', items: 'input.list' } }],
      });
      expect(unknown.status).toBe(400);
      expect(JSON.stringify(unknown.body)).toContain('nodes[0].config.workflow_id');

      const other = await newTenant(platform);
      const theirs = await create({ name: 'theirs', nodes: [{ id: 't', type: 'transform' }] }, other.http);
      const foreign = await http.post('/api/v1/workflows', {
        name: 'foreign',
        nodes: [{ id: 'sub', type: 'workflow', config: { workflow_id: theirs.id } }],
      });
      expect(foreign.status).toBe(400);
      expect(JSON.stringify(foreign.body)).toContain('nodes[0].config.workflow_id');

      const badConcurrency = await http.post('/api/v1/workflows', {
        name: 'bad',
        nodes: [{ id: 'each', type: 'foreach', config: { workflow_id: wf.id, items: 'input.list', concurrency: 17 } }],
      });
      expect(badConcurrency.status).toBe(400);
      expect(JSON.stringify(badConcurrency.body)).toContain('nodes[0].config.concurrency');
    });

    it('runs a foreach over 100 items, at most 8 at a time, with the outputs in item order', async () => {
      server.delayMs = 150;
      server.maxInFlight = 0;
      const child = await create({
        name: 'square',
        nodes: [
          {
            id: 'call',
            type: 'integration',
            config: { service: 'http', method: 'GET', url: server.url('/item?i={{ input.index }}') },
          },
          {
            id: 'out',
            type: 'transform',
            config: { fields: { index: 'input.index', square: 'input.item * input.item' } },
          },
        ],
        edges: [{ source: 'call', target: 'out' }],
      });
      const parent = await create({
        name: 'each',
        nodes: [
          { id: 'each', type: 'foreach', config: { workflow_id: child.id, items: 'input.list', concurrency: 8 } },
        ],
      });
      const list = Array.from({ length: 100 }, (_, i) => i);
      const before = server.count('/item');
      const id = await startAsync(parent.id, { list });
      const execution = await finished(http, parent.id, id, 180_000);
      expect(execution.status).toBe('completed');
      expect(execution.output.results).toEqual(list.map((i) => ({ index: i, square: i * i })));
      expect(server.count('/item') - before).toBe(100);
      expect(server.maxInFlight).toBeLessThanOrEqual(8);
      expect(server.maxInFlight).toBeGreaterThan(1);
      const children = await executions(child.id);
      expect(children.filter((c) => c.parent_execution_id === id)).toHaveLength(100);
    }, 240_000);

    it('fails a foreach naming the items whose runs failed', async () => {
      const child = await create({
        name: 'picky',
        nodes: [{ id: 'check', type: 'transform', config: { fields: { v: '10 / input.item' } } }],
      });
      const parent = await create({
        name: 'each picky',
        nodes: [{ id: 'each', type: 'foreach', config: { workflow_id: child.id, items: '[1, 0, 2, 0]' } }],
      });
      const res = await http.post(`/api/v1/workflows/${parent.id}/execute`, { input: {} });
      expect(res.body).toMatchObject({ status: 'failed', failed_node_id: 'each' });
      expect(res.body.error).toMatch(/2 of 4 items failed \(indexes 1, 3\)/);
    });

    it('fails the node cleanly when nesting goes deeper than 5 (an A -> B -> A cycle)', async () => {
      const b = await create({ name: 'B', nodes: [{ id: 't', type: 'transform' }] });
      const a = await create({
        name: 'A',
        nodes: [{ id: 'call_b', type: 'workflow', config: { workflow_id: b.id } }],
      });
      const updated = await http.put(`/api/v1/workflows/${b.id}`, {
        nodes: [{ id: 'call_a', type: 'workflow', config: { workflow_id: a.id } }],
        edges: [],
      });
      expect(updated.status).toBe(200);

      const res = await http.post(`/api/v1/workflows/${a.id}/execute`, { input: {} });
      expect(res.body.status).toBe('failed');
      expect(res.body.failed_node_id).toBe('call_b');
      // The deepest run (B at depth 5) fails its node; every level above fails with it.
      const runsOfA = await executions(a.id);
      const runsOfB = await executions(b.id);
      expect(runsOfA).toHaveLength(3);
      expect(runsOfB).toHaveLength(3);
      const deepest = runsOfB.find((r) => !runsOfA.some((x) => x.parent_execution_id === r.execution_id));
      const detail = await http.get(`/api/v1/workflows/${b.id}/executions/${deepest.execution_id}`);
      expect(detail.body.error).toMatch(/nesting deeper than 5 levels/);
      expect(res.body.error).toMatch(/nesting deeper than 5 levels/);
    });

    it('cancels the running children when the parent is cancelled', async () => {
      const child = await create({ name: 'sleeper', nodes: [{ id: 'wait', type: 'delay', config: { ms: 60_000 } }] });
      const parent = await create({
        name: 'fan out',
        nodes: [{ id: 'each', type: 'foreach', config: { workflow_id: child.id, items: '[1, 2, 3]', concurrency: 3 } }],
      });
      const id = await startAsync(parent.id);
      await waitFor(async () => (await executions(child.id)).filter((c) => c.status === 'running').length === 3, {
        timeoutMs: 20_000,
        what: 'three running children',
      });
      const cancel = await http.post(`/api/v1/workflows/${parent.id}/executions/${id}/cancel`, {});
      expect(cancel.status).toBe(200);
      const children = await waitFor(
        async () => {
          const list = await executions(child.id);
          return list.every((c) => c.status === 'cancelled') ? list : undefined;
        },
        { timeoutMs: 10_000, what: 'children cancelled' },
      );
      expect(children).toHaveLength(3);
      // Nothing new starts after the cancel.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(await executions(child.id)).toHaveLength(3);
    });
  });

  describe('versions', () => {
    it('bumps the version on changes, not on pause or resume, and a running execution keeps its graph', async () => {
      const wf = await create({
        name: 'versioned',
        nodes: [
          { id: 'wait', type: 'delay', config: { ms: 2_000 } },
          { id: 'out', type: 'transform', config: { fields: { v: "'one'" } } },
        ],
        edges: [{ source: 'wait', target: 'out' }],
      });
      expect(wf.version).toBe(1);
      const running = await startAsync(wf.id);

      const updated = await http.put(`/api/v1/workflows/${wf.id}`, {
        nodes: [
          { id: 'wait', type: 'delay', config: { ms: 0 } },
          { id: 'out', type: 'transform', config: { fields: { v: "'two'" } } },
        ],
      });
      expect(updated.status).toBe(200);
      expect(updated.body.version).toBe(2);
      expect((await http.post(`/api/v1/workflows/${wf.id}/pause`, {})).body.status).toBe('paused');
      expect((await http.post(`/api/v1/workflows/${wf.id}/resume`, {})).body.status).toBe('active');
      expect((await http.get(`/api/v1/workflows/${wf.id}`)).body.version).toBe(2);
      const renamed = await http.put(`/api/v1/workflows/${wf.id}`, { name: 'versioned (renamed)' });
      expect(renamed.body.version).toBe(3);

      const first = await finished(http, wf.id, running);
      expect(first).toMatchObject({ status: 'completed', output: { v: 'one' }, workflow_version: 1 });
      const second = await http.post(`/api/v1/workflows/${wf.id}/execute`, { input: {} });
      expect(second.body).toMatchObject({ status: 'completed', output: { v: 'two' }, workflow_version: 3 });
    });
  });

  describe('retry', () => {
    it('resumes at the failed node without calling the completed ones again', async () => {
      server.delayMs = 0;
      server.failing.add('/flaky');
      const wf = await create({
        name: 'retry me',
        nodes: [
          { id: 'first', type: 'integration', config: { service: 'http', method: 'POST', url: server.url('/first') } },
          { id: 'second', type: 'integration', config: { service: 'http', method: 'GET', url: server.url('/flaky') } },
          { id: 'out', type: 'transform', config: { fields: { done: 'true' } } },
        ],
        edges: [
          { source: 'first', target: 'second' },
          { source: 'second', target: 'out' },
        ],
      });
      const failed = await http.post(`/api/v1/workflows/${wf.id}/execute`, { input: { k: 1 } });
      expect(failed.body).toMatchObject({ status: 'failed', failed_node_id: 'second' });
      expect(server.count('/first')).toBe(1);
      expect(server.count('/flaky')).toBe(1);

      server.failing.delete('/flaky');
      const other = await newTenant(platform);
      const foreign = await other.http.post(`/api/v1/executions/${failed.body.execution_id}/retry`, {});
      expect(foreign.status).toBe(404);

      const retry = await http.post(`/api/v1/executions/${failed.body.execution_id}/retry`);
      expect(retry.status).toBe(202);
      expect(retry.body).toMatchObject({ retry_of: failed.body.execution_id, trigger: 'manual', input: { k: 1 } });
      const done = await finished(http, wf.id, retry.body.execution_id);
      expect(done).toMatchObject({ status: 'completed', output: { done: true }, workflow_version: 1 });
      expect(server.count('/first')).toBe(1);
      expect(server.count('/flaky')).toBe(2);
      expect(byNode(done).first.output).toEqual(byNode(failed.body).first.output);

      const started = await tap.wait(
        'workflow.execution.started',
        (e) => e.data.execution_id === retry.body.execution_id,
      );
      expect(started.data.retry_of).toBe(failed.body.execution_id);
      const completed = await tap.wait(
        'workflow.execution.completed',
        (e) => e.data.execution_id === retry.body.execution_id,
      );
      expect(completed.data.retry_of).toBe(failed.body.execution_id);

      // Only failed or cancelled executions are retried.
      const completedRetry = await http.post(`/api/v1/executions/${retry.body.execution_id}/retry`, {});
      expect(completedRetry.status).toBe(409);
      const badVersion = await http.post(`/api/v1/executions/${failed.body.execution_id}/retry`, { version: 'latest' });
      expect(badVersion.status).toBe(400);
      expect(JSON.stringify(badVersion.body)).toContain('version');
    });

    it('with version current runs the workflow as it is now, reusing the unchanged nodes', async () => {
      const wf = await create({
        name: 'fix me',
        nodes: [
          { id: 'fetch', type: 'integration', config: { service: 'http', method: 'POST', url: server.url('/fetch') } },
          { id: 'shape', type: 'transform', config: { fields: { v: 'input.missing.field' } } },
        ],
        edges: [{ source: 'fetch', target: 'shape' }],
      });
      const failed = await http.post(`/api/v1/workflows/${wf.id}/execute`, { input: {} });
      expect(failed.body).toMatchObject({ status: 'failed', failed_node_id: 'shape' });
      expect(server.count('/fetch')).toBe(1);

      const fixed = await http.put(`/api/v1/workflows/${wf.id}`, {
        nodes: [
          { id: 'fetch', type: 'integration', config: { service: 'http', method: 'POST', url: server.url('/fetch') } },
          { id: 'shape', type: 'transform', config: { fields: { v: "'fixed'", status: 'status' } } },
        ],
      });
      expect(fixed.body.version).toBe(2);

      const same = await http.post(`/api/v1/executions/${failed.body.execution_id}/retry`, {});
      expect(same.status).toBe(202);
      const sameDone = await finished(http, wf.id, same.body.execution_id);
      expect(sameDone).toMatchObject({ status: 'failed', failed_node_id: 'shape', workflow_version: 1 });

      const current = await http.post(`/api/v1/executions/${failed.body.execution_id}/retry`, { version: 'current' });
      expect(current.status).toBe(202);
      const done = await finished(http, wf.id, current.body.execution_id);
      expect(done.error).toBeUndefined();
      expect(done).toMatchObject({ status: 'completed', output: { v: 'fixed', status: 200 }, workflow_version: 2 });
      expect(server.count('/fetch')).toBe(1);
    });
  });

  describe('crash', () => {
    it('a foreach resumed after a crash finds the children it started and starts no second one', async () => {
      const child = await create({
        name: 'slow child',
        nodes: [
          { id: 'wait', type: 'delay', config: { ms: 3_000 } },
          { id: 'out', type: 'transform', config: { fields: { item: 'input.item' } } },
        ],
        edges: [{ source: 'wait', target: 'out' }],
      });
      const parent = await create({
        name: 'fan out, crash',
        nodes: [
          { id: 'each', type: 'foreach', config: { workflow_id: child.id, items: 'input.list', concurrency: 2 } },
        ],
      });
      const before = (await http.get('/api/v1/billing/credits')).body.balance;
      const id = await startAsync(parent.id, { list: ['a', 'b', 'c', 'd'] });
      await waitFor(async () => (await executions(child.id)).length === 2, {
        timeoutMs: 20_000,
        what: 'the first two children',
      });
      const workflow = platform.service('workflow');
      await workflow.kill();
      await workflow.start();

      const execution = await finished(http, parent.id, id, 60_000);
      expect(execution.error).toBeUndefined();
      expect(execution).toMatchObject({
        status: 'completed',
        output: { results: [{ item: 'a' }, { item: 'b' }, { item: 'c' }, { item: 'd' }] },
      });
      const runs = await executions(child.id);
      expect(runs).toHaveLength(4);
      expect(runs.every((r) => r.parent_execution_id === id && r.status === 'completed')).toBe(true);
      // One credit for the parent and one per child: the resumed parent charged nothing twice.
      await waitFor(async () => (await http.get('/api/v1/billing/credits')).body.balance === before - 5, {
        timeoutMs: 15_000,
        what: 'five credits charged',
      });
    }, 120_000);
  });
});
