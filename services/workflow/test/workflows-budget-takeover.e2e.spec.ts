import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { Receiver, ServiceProcess, newTenant, startPlatform, suiteFixture, type Http } from '@agentplatform/testing';
import { byNode, finished } from './workflows.support';

const LIST = `[${Array.from({ length: 300 }, (_, i) => i).join(',')}]`;
/** Three nested macros over 300-element lists: 27 million steps, minutes of CPU without a budget. */
const BOMB = `${LIST}.all(x, ${LIST}.all(y, ${LIST}.all(z, true)))`;
const LEASE_MS = 1_500;
const BOMBS = 6;

/**
 * A lease takeover never re-runs an execution that failed its budget (issue 13): two workflow
 * replicas on one database with short leases, the one that ran the bombs killed (SIGKILL) right
 * after they failed, the other polling for expired leases all along, then the first restarted.
 * Real gateway, identity and workflow processes, Kafka and the MongoDB stand-in.
 */
describe('an execution that failed its expression budget after a lease takeover', () => {
  const platform = suiteFixture(() =>
    startPlatform({
      services: ['identity', 'workflow'],
      serviceEnv: { workflow: { EXECUTION_LEASE_MS: String(LEASE_MS), EXECUTION_POLL_INTERVAL_MS: '100' } },
    }),
  );
  const receiver = suiteFixture(() => Receiver.start());
  let http: Http;
  let second: ServiceProcess | undefined;

  beforeAll(async () => {
    http = (await newTenant(platform)).http;
    const env = (platform.service('workflow') as unknown as { env: NodeJS.ProcessEnv }).env;
    second = new ServiceProcess('workflow', { ...env, GRPC_PORT: '0' }, path.join(platform.logDir, 'workflow-2.log'));
    await second.start();
  });

  afterAll(async () => {
    await second?.stop();
  });

  it('stays failed: neither the other replica nor the restarted one runs it again', async () => {
    const created = await http.post('/api/v1/workflows', {
      name: 'bomb after a call',
      nodes: [
        // Counts the runs from the start: a repeated run calls it again.
        { id: 'call', type: 'integration', config: { service: 'http', method: 'GET', url: receiver.url('/before') } },
        {
          id: 'check',
          type: 'condition',
          // Retries allowed: a budget failure must still be final, never another attempt.
          config: {
            retry: { max_attempts: 3, backoff_ms: 0 },
            rules: [{ if: BOMB, goto: 'after' }, { else: 'after' }],
          },
        },
        { id: 'after', type: 'integration', config: { service: 'http', method: 'POST', url: receiver.url('/after') } },
      ],
      edges: [
        { source: 'call', target: 'check' },
        { source: 'check', target: 'after' },
      ],
    });
    expect(created.status).toBe(201);
    const workflowId: string = created.body.id;

    // Several at once, so some wait for a CEL worker while their leases keep running.
    const ids: string[] = [];
    for (let i = 0; i < BOMBS; i += 1) {
      const res = await http.post(`/api/v1/workflows/${workflowId}/execute`, { input: { i }, async: true });
      expect(res.status).toBe(202);
      ids.push(res.body.execution_id);
    }
    const failed = await Promise.all(ids.map((id) => finished(http, workflowId, id)));
    for (const execution of failed) {
      expect(execution).toMatchObject({ status: 'failed', failed_node_id: 'check' });
      expect(byNode(execution).check).toMatchObject({ status: 'failed', attempts: 1 });
      expect(byNode(execution).check.error).toMatch(/^expression_budget_exceeded/);
    }

    // The replica that ran them dies at once; the other one polls for expired leases meanwhile.
    const primary = platform.service('workflow');
    await primary.kill();
    await sleep(LEASE_MS * 4);
    await primary.start();
    await sleep(LEASE_MS * 2);

    for (const [index, before] of failed.entries()) {
      const res = await http.get(`/api/v1/workflows/${workflowId}/executions/${ids[index]}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'failed',
        failed_node_id: 'check',
        error: before.error,
        completed_at: before.completed_at,
      });
      expect(res.body.node_executions).toEqual(before.node_executions);
      expect(byNode(res.body).check.attempts).toBe(1);
      expect(byNode(res.body).after).toBeUndefined();
    }
    // Each execution called its first node once, and none reached the node after the bomb.
    expect(receiver.to('/before')).toHaveLength(BOMBS);
    expect(receiver.to('/after')).toHaveLength(0);
  });
});
