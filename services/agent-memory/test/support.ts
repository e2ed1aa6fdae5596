import { identityV1 } from '@agentplatform/contracts';
import { createKafka, parseEnvelope, type EventEnvelope, type EventType } from '@agentplatform/events';
import { createGrpcClient, createLogger, openChannel } from '@agentplatform/service-kit';
import { api, createApiKey, registerUser, waitFor, type Platform, type RegisteredUser } from '@agentplatform/testing';
import type { Consumer } from 'kafkajs';

export const logger = createLogger('agent-memory-test', 'silent');

export type Http = ReturnType<typeof api>;

/** A registered user (their own tenant) and an HTTP client carrying their access token. */
export async function newTenant(platform: Platform): Promise<{ user: RegisteredUser; http: Http }> {
  const user = await registerUser(platform.url);
  return { user, http: api(platform.url, user.accessToken) };
}

export { createApiKey };

/** The identity service's gRPC client (tests drain credits through it). */
export function identityClient(platform: Platform) {
  return createGrpcClient(
    identityV1.IdentityServiceDefinition,
    openChannel(`127.0.0.1:${platform.service('identity').ready!.grpc_port}`),
    { deadlineMs: 10_000 },
  );
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
    // The topic is created by the services in the background; wait until it exists.
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

  find<T extends EventType>(type: T, match: (event: EventEnvelope<T>) => boolean = () => true): EventEnvelope<T> | undefined {
    return this.events.find((e): e is EventEnvelope<T> => e.type === type && match(e as EventEnvelope<T>));
  }

  wait<T extends EventType>(type: T, match: (event: EventEnvelope<T>) => boolean = () => true): Promise<EventEnvelope<T>> {
    return waitFor(() => this.find(type, match), { timeoutMs: 30_000, what: `event ${type}` });
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }
}

/** Parses a server-sent event stream into its events. */
export function parseSse(text: string): Array<{ event: string; data: any }> {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((l) => l.startsWith('event:'))?.slice(6).trim() ?? 'message';
      const data = lines
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .join('\n');
      return { event, data: JSON.parse(data) };
    });
}
