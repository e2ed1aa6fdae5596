import path from 'node:path';
import { agentMemoryV1 } from '@agentplatform/contracts';
import { createGrpcClient, openChannel } from '@agentplatform/service-kit';
import { identityClient, ServiceProcess, type Platform, type TenantPlatform } from '@agentplatform/testing';

export { EventTap, createApiKey, identityClient, newTenant, type Http } from '@agentplatform/testing';

/** Brings a new tenant's balance (1,000 welcome credits) down to `balance`, through identity. */
export async function drainTo(platform: Platform, tenantId: string, balance: number): Promise<void> {
  const identity = identityClient(platform);
  try {
    await identity.client.charge({
      tenantId,
      amount: 1000 - balance,
      idempotencyKey: `drain-${tenantId}`,
      description: 'test: drain',
    });
  } finally {
    identity.channel.close();
  }
}

/** Parses a server-sent event stream into its events. */
export function parseSse(text: string): Array<{ event: string; data: any }> {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const event =
        lines
          .find((l) => l.startsWith('event:'))
          ?.slice(6)
          .trim() ?? 'message';
      const data = lines
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .join('\n');
      return { event, data: JSON.parse(data) };
    });
}

/** The memory suites' calls through the gateway as `suite`'s tenant, and a second agent-memory replica. */
export function memoryHelpers(suite: TenantPlatform) {
  const newAgent = async (memoryTypes = ['semantic', 'episodic']) => {
    const res = await suite.http.post('/api/v1/agents', {
      name: 'Memory agent',
      type: 'research',
      memory_types: memoryTypes,
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  const add = async (
    agentId: string,
    content: string,
    metadata: Record<string, unknown> = {},
    memoryType = 'semantic',
  ) => {
    const res = await suite.http.post('/api/v1/memory', {
      agent_id: agentId,
      memory_type: memoryType,
      content,
      metadata,
    });
    expect(res.status).toBe(201);
    return res.body;
  };

  /** A second agent-memory replica beside the gateway's, with a gRPC client to it; stop it after. */
  const startReplica = async () => {
    const replica = new ServiceProcess(
      'agent-memory',
      {
        ...process.env,
        LOG_LEVEL: 'info',
        MONGODB_URI: suite.platform.mongoUri,
        MONGODB_DATABASE: suite.platform.database('agent-memory'),
        KAFKA_BROKERS: suite.platform.kafkaBrokers.join(','),
        KAFKA_TOPIC: suite.platform.topic,
        GRPC_HOST: '127.0.0.1',
        GRPC_PORT: '0',
        METRICS_PORT: '0',
        IDENTITY_GRPC_ADDR: `127.0.0.1:${suite.platform.service('identity').ready!.grpc_port}`,
        DATA_ENCRYPTION_KEY: suite.platform.dataEncryptionKey,
      },
      path.join(suite.platform.logDir, 'agent-memory-replica.log'),
    );
    const ready = await replica.start();
    const channel = openChannel(`127.0.0.1:${ready.grpc_port}`);
    return {
      client: createGrpcClient(agentMemoryV1.AgentMemoryServiceDefinition, channel, { deadlineMs: 10_000 }),
      stop: async () => {
        channel.close();
        await replica.stop();
      },
    };
  };

  const search = async (body: Record<string, unknown>) => {
    const res = await suite.http.post('/api/v1/memory/search', body);
    expect(res.status).toBe(200);
    return res.body.results as Array<{ id: string; content: string; score: number; metadata: Record<string, unknown> }>;
  };

  return { newAgent, add, startReplica, search };
}
