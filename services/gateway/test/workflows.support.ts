import { identityV1 } from '@agentplatform/contracts';
import { createKafka, parseEnvelope, type EventEnvelope, type EventType } from '@agentplatform/events';
import { createGrpcClient, createLogger, openChannel } from '@agentplatform/service-kit';
import { api, registerUser, waitFor, type Platform, type RegisteredUser } from '@agentplatform/testing';
import type { Consumer } from 'kafkajs';

const logger = createLogger('workflows-test', 'silent');

export type Http = ReturnType<typeof api>;

/** A registered user (their own tenant) and an HTTP client carrying their access token. */
export async function newTenant(platform: Platform): Promise<{ user: RegisteredUser; http: Http }> {
  const user = await registerUser(platform.url);
  return { user, http: api(platform.url, user.accessToken) };
}

/** The identity service's gRPC client (a test drains a tenant's credits through it); close its channel after use. */
export function identityClient(platform: Platform) {
  const channel = openChannel(`127.0.0.1:${platform.service('identity').ready!.grpc_port}`);
  return { client: createGrpcClient(identityV1.IdentityServiceDefinition, channel, { deadlineMs: 10_000 }), channel };
}

/** Reads the platform's events topic from the beginning and keeps every envelope it sees. */
export class EventTap {
  readonly events: EventEnvelope[] = [];

  private constructor(private readonly consumer: Consumer) {}

  static async start(platform: Platform, label: string): Promise<EventTap> {
    const kafka = createKafka({ brokers: platform.kafkaBrokers, clientId: `tap-${label}`, logger });
    const consumer = kafka.consumer({ groupId: `tap-${label}-${platform.suffix}` });
    const tap = new EventTap(consumer);
    await consumer.connect();
    const admin = kafka.admin();
    await admin.connect();
    await waitFor(async () => (await admin.listTopics()).includes(platform.topic), { timeoutMs: 30_000, what: 'events topic' });
    await admin.disconnect();
    await consumer.subscribe({ topic: platform.topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const event = parseEnvelope(message.value);
        if (event) tap.events.push(event);
      },
    });
    return tap;
  }

  filter(match: (event: EventEnvelope) => boolean): EventEnvelope[] {
    return this.events.filter(match);
  }

  wait<T extends EventType>(type: T, match: (event: EventEnvelope<T>) => boolean = () => true): Promise<EventEnvelope<T>> {
    return waitFor(() => this.events.find((e): e is EventEnvelope<T> => e.type === type && match(e as EventEnvelope<T>)), {
      timeoutMs: 30_000,
      what: `event ${type}`,
    });
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }
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
