import path from 'node:path';
import { workflowV1 } from '@agentplatform/contracts';
import { createGrpcClient, openChannel, type Channel } from '@agentplatform/service-kit';
import {
  Receiver,
  ServiceProcess,
  newTenant,
  startPlatform,
  suiteFixture,
  waitFor,
  type Http,
} from '@agentplatform/testing';
import { byNode, finished } from './workflows.support';

/**
 * The engine survives crashes: a workflow process killed (SIGKILL) mid-execution leaves no
 * execution stuck in running. After a restart, or on another replica, the execution resumes from
 * its last finished node, or fails when the interrupted node is not safe to repeat.
 */
describe('workflow executions survive a crash', () => {
  const platform = suiteFixture(() =>
    startPlatform({
      services: ['identity', 'workflow'],
      // Short leases so a dead replica's work moves within seconds.
      serviceEnv: { workflow: { EXECUTION_LEASE_MS: '2000', EXECUTION_POLL_INTERVAL_MS: '200' } },
    }),
  );
  const receiver = suiteFixture(() => Receiver.start());
  let http: Http;
  let tenantId: string;

  beforeAll(async () => {
    const tenant = await newTenant(platform);
    http = tenant.http;
    tenantId = tenant.user.tenantId;
  });

  async function create(body: Record<string, unknown>): Promise<string> {
    const res = await http.post('/api/v1/workflows', body);
    expect(res.status).toBe(201);
    return res.body.id;
  }

  async function startAsync(workflowId: string, input: Record<string, unknown> = {}): Promise<string> {
    const res = await http.post(`/api/v1/workflows/${workflowId}/execute`, { input, async: true });
    expect(res.status).toBe(202);
    return res.body.execution_id;
  }

  it('resumes a delay interrupted by a crash from its last finished node after a restart', async () => {
    const workflowId = await create({
      name: 'slow',
      nodes: [
        { id: 'prep', type: 'transform', config: { fields: { n: 'input.n + 1' } } },
        { id: 'wait', type: 'delay', config: { ms: 3_000 } },
        { id: 'done', type: 'transform', config: { fields: { n: 'n * 10', from: 'nodes.prep.n' } } },
      ],
      edges: [
        { source: 'prep', target: 'wait' },
        { source: 'wait', target: 'done' },
      ],
    });
    const executionId = await startAsync(workflowId, { n: 1 });
    // The first node is stored before the delay starts.
    await waitFor(async () => {
      const res = await http.get(`/api/v1/workflows/${workflowId}/executions/${executionId}`);
      return res.body.node_executions?.some((n: { node_id: string }) => n.node_id === 'prep');
    });
    const workflow = platform.service('workflow');
    await workflow.kill();
    await workflow.start();

    const execution = await finished(http, workflowId, executionId);
    expect(execution.status).toBe('completed');
    expect(execution.output).toEqual({ n: 20, from: 2 });
    const nodes = byNode(execution);
    expect(nodes.prep.status).toBe('completed');
    expect(nodes.wait.status).toBe('completed');
    // The delay kept its original start: it waited out the rest, not another 3 s from the restart.
    expect(new Date(nodes.wait.started_at).getTime()).toBeLessThan(new Date(nodes.done.started_at).getTime() - 2_500);
  });

  it('fails an execution whose interrupted node is not safe to repeat (a POST), without repeating it', async () => {
    receiver.on('/slow-post', { status: 200, delayMs: 20_000, body: 'late' });
    const workflowId = await create({
      name: 'post',
      nodes: [
        {
          id: 'call',
          type: 'integration',
          config: { service: 'http', method: 'POST', url: receiver.url('/slow-post') },
        },
      ],
    });
    const executionId = await startAsync(workflowId);
    await receiver.waitForRequests(1, { path: '/slow-post' });
    const workflow = platform.service('workflow');
    await workflow.kill();
    await workflow.start();

    const execution = await finished(http, workflowId, executionId);
    expect(execution).toMatchObject({
      status: 'failed',
      failed_node_id: 'call',
      error: expect.stringMatching(/not safe to repeat/),
    });
    expect(byNode(execution).call.status).toBe('failed');
    expect(receiver.to('/slow-post')).toHaveLength(1);
  });

  it('repeats an interrupted GET, which is safe to repeat', async () => {
    receiver.on('/slow-get', (_req, index) =>
      index === 0 ? { status: 200, delayMs: 20_000 } : { status: 200, body: 'second' },
    );
    const workflowId = await create({
      name: 'get',
      nodes: [
        { id: 'call', type: 'integration', config: { service: 'http', method: 'GET', url: receiver.url('/slow-get') } },
      ],
    });
    const executionId = await startAsync(workflowId);
    await receiver.waitForRequests(1, { path: '/slow-get' });
    const workflow = platform.service('workflow');
    await workflow.kill();
    await workflow.start();

    const execution = await finished(http, workflowId, executionId);
    expect(execution.status).toBe('completed');
    expect(execution.output).toMatchObject({ status: 200, body: 'second' });
    expect(receiver.to('/slow-get')).toHaveLength(2);
  });

  it("hands a dead replica's execution to another running replica", async () => {
    const primary = platform.service('workflow');
    // A second replica on the same database: the same environment, its own port.
    const env = (primary as unknown as { env: NodeJS.ProcessEnv }).env;
    const second = new ServiceProcess(
      'workflow',
      { ...env, GRPC_PORT: '0' },
      path.join(platform.logDir, 'workflow-2.log'),
    );
    const ready = await second.start();
    let channel: Channel | undefined;
    try {
      const workflowId = await create({
        name: 'replicas',
        nodes: [
          { id: 'wait', type: 'delay', config: { ms: 1_500 } },
          { id: 'done', type: 'transform', config: { fields: { ok: 'true' } } },
        ],
        edges: [{ source: 'wait', target: 'done' }],
      });
      const executionId = await startAsync(workflowId); // runs on the primary, which the gateway talks to
      await primary.kill();

      channel = openChannel(`127.0.0.1:${ready.grpc_port}`);
      const client = createGrpcClient(workflowV1.WorkflowServiceDefinition, channel, { deadlineMs: 5_000 });
      const execution = await waitFor(
        async () => {
          const e = await client.getExecution({ tenantId, workflowId, executionId });
          return e.status !== 'running' ? e : undefined;
        },
        { timeoutMs: 20_000, what: 'the second replica to finish the execution' },
      );
      expect(execution.status).toBe('completed');
      expect(execution.output).toEqual({ ok: true });
    } finally {
      channel?.close();
      await second.stop();
      await primary.start();
    }
  });
});
