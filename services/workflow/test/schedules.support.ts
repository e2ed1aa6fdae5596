import path from 'node:path';
import { MongoClient } from 'mongodb';
import { ServiceProcess, newTenant, startPlatform, waitFor, type Http, type Platform } from '@agentplatform/testing';

/** A platform with two workflow replicas on one database: the gateway talks to the first. */
export interface TwoReplicas {
  platform: Platform;
  second: ServiceProcess;
  mongo: MongoClient;
  /** A tenant registered for the suite, and its caller. */
  http: Http;
  tenantId: string;
  stop(): Promise<void>;
}

/** Starts the platform, the second replica and a tenant; whatever started is stopped on failure. */
export async function startTwoReplicas(workflowEnv: NodeJS.ProcessEnv = {}): Promise<TwoReplicas> {
  const started: Partial<TwoReplicas> = {};
  const stop = async () => {
    await started.mongo?.close();
    await started.second?.stop();
    await started.platform?.stop();
  };
  try {
    const platform = (started.platform = await startPlatform({
      services: ['identity', 'workflow'],
      // Registration hashes a password: on a loaded machine it can take longer than the default 5 s.
      serviceEnv: { workflow: workflowEnv, gateway: { GRPC_DEADLINE_MS: '20000' } },
    }));
    const env = (platform.service('workflow') as unknown as { env: NodeJS.ProcessEnv }).env;
    const second = (started.second = new ServiceProcess(
      'workflow',
      { ...env, GRPC_PORT: '0' },
      path.join(platform.logDir, 'workflow-2.log'),
    ));
    await second.start();
    const mongo = (started.mongo = await MongoClient.connect(platform.mongoUri));
    const tenant = await newTenant(platform);
    return { platform, second, mongo, http: tenant.http, tenantId: tenant.user.tenantId, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A new tenant on `plan` (set in identity before the tenant's first authenticated request). */
export async function tenantOnPlan(platform: Platform, mongo: MongoClient, plan: string) {
  const tenant = await newTenant(platform);
  await mongo
    .db(platform.database('identity'))
    .collection('tenants')
    .updateOne({ _id: tenant.user.tenantId } as never, { $set: { plan } });
  return tenant;
}

export function scheduleWorkflow(cron: string, extra: Record<string, unknown> = {}) {
  return {
    name: `every ${cron}`,
    nodes: [
      { id: 'tick', type: 'schedule', config: { cron, input: { source: 'clock' }, ...extra } },
      { id: 'mark', type: 'transform', config: { fields: { seen: 'source' } } },
    ],
    edges: [{ source: 'tick', target: 'mark' }],
  };
}

export async function createActive(http: Http, body: Record<string, unknown>): Promise<string> {
  const created = await http.post('/api/v1/workflows', body);
  expect(created.status).toBe(201);
  const resumed = await http.post(`/api/v1/workflows/${created.body.id}/resume`, {});
  expect(resumed.status).toBe(200);
  return created.body.id;
}

/** The workflow's executions (at most 100, newest first). */
export async function executionsOf(http: Http, workflowId: string): Promise<any[]> {
  const res = await http.get(`/api/v1/workflows/${workflowId}/executions?limit=100`);
  expect(res.status).toBe(200);
  return res.body.items;
}

export interface ClaimRow {
  _id: string;
  workflow_id: string;
  tick_at: Date;
  execution_id: string;
  state: string;
  owner: string;
}

export async function claimsOf(setup: TwoReplicas, workflowId: string): Promise<ClaimRow[]> {
  const rows = await setup.mongo
    .db(setup.platform.database('workflow'))
    .collection('schedule_claims')
    .find({ workflow_id: workflowId })
    .sort({ tick_at: 1 })
    .toArray();
  return rows as unknown as ClaimRow[];
}

/** Waits until no claim of the workflow is still being started or waiting for recovery. */
export async function claimsSettled(setup: TwoReplicas, workflowId: string, timeoutMs = 30_000): Promise<ClaimRow[]> {
  return waitFor(
    async () => {
      const claims = await claimsOf(setup, workflowId);
      return claims.every((c) => c.state !== 'starting') ? claims : undefined;
    },
    { timeoutMs, intervalMs: 200, what: `claims of ${workflowId} to settle` },
  );
}
