import {
  EventTap,
  newTenant,
  Receiver,
  startPlatform,
  waitFor,
  type ApiResponse,
  type Http,
  type Platform,
} from '@agentplatform/testing';

/** Creates a workflow through the gateway and answers its id. */
export async function createWorkflow(http: Http, body: Record<string, unknown>): Promise<string> {
  const res = await http.post('/api/v1/workflows', body);
  expect(res.status).toBe(201);
  return res.body.id;
}

/** The p-th percentile of a list of numbers (nearest rank). */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Waits until an execution has left `running` and answers it. */
export async function finished(http: Http, workflowId: string, executionId: string, timeoutMs = 30_000): Promise<any> {
  return waitFor(
    async () => {
      const res = await http.get(`/api/v1/workflows/${workflowId}/executions/${executionId}`);
      return res.status === 200 && res.body.status !== 'running' ? res.body : undefined;
    },
    { timeoutMs, intervalMs: 100, what: `execution ${executionId} to finish` },
  );
}

/** The node results of an execution by node id. */
export function byNode(execution: { node_executions: Array<{ node_id: string }> }): Record<string, any> {
  return Object.fromEntries(execution.node_executions.map((n) => [n.node_id, n]));
}

/** The secret hook id in a workflow's webhook_url (`hk_` and 32 base62 characters). */
export function hookIdOf(workflow: { webhook_url: string }): string {
  const match = /\/hooks\/(hk_[0-9A-Za-z]{32})(?:\/|$)/.exec(workflow.webhook_url);
  if (!match) throw new Error(`no hook id in ${workflow.webhook_url}`);
  return match[1]!;
}

/** A webhook-triggered graph that routes by `input.body.amount`: the gateway suites' usual workflow. */
export const branching = {
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

/** What the gateway suites work with: a platform, a tenant, an HTTP receiver and the events on Kafka. */
export interface GatewayWorkflows {
  platform: Platform;
  http: Http;
  tenantId: string;
  receiver: Receiver;
  tap: EventTap;
  /** Creates a workflow, expecting 201, and answers it. */
  create(body: Record<string, unknown>): Promise<any>;
  execute(workflowId: string, input: Record<string, unknown>, async?: boolean): Promise<ApiResponse>;
  stop(): Promise<void>;
}

/** How long the gateway suites' platform may take to start: agent-memory loads its model, on a shared machine. */
export const STARTUP_MS = 180_000;

/**
 * Starts identity, agent-memory and workflow behind the gateway, a tenant, a Receiver and an
 * EventTap (its consumer group named `label`), for `suiteFixture`.
 */
export async function startGatewayWorkflows(label: string): Promise<GatewayWorkflows> {
  const platform = await startPlatform({ services: ['identity', 'agent-memory', 'workflow'] });
  let receiver: Receiver | undefined;
  let tap: EventTap | undefined;
  const stop = async () => {
    await tap?.stop();
    await receiver?.close();
    await platform.stop();
  };
  try {
    receiver = await Receiver.start();
    tap = await EventTap.start(platform, label);
    const tenant = await newTenant(platform);
    const http = tenant.http;
    return {
      platform,
      http,
      tenantId: tenant.user.tenantId,
      receiver,
      tap,
      async create(body) {
        const res = await http.post('/api/v1/workflows', body);
        expect(res.status).toBe(201);
        return res.body;
      },
      execute: (workflowId, input, async = false) =>
        http.post(`/api/v1/workflows/${workflowId}/execute`, { input, async }),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
