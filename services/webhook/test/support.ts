import { createHmac } from 'node:crypto';
import mongoose, { type Connection } from 'mongoose';
import { webhookV1 } from '@agentplatform/contracts';
import {
  createEvent,
  createKafka,
  Outbox,
  OutboxRelay,
  type EventData,
  type EventEnvelope,
  type EventType,
} from '@agentplatform/events';
import { createGrpcClient, createLogger, newId, openChannel } from '@agentplatform/service-kit';
import {
  Receiver,
  startPlatform,
  type Platform,
  type PlatformOptions,
  type ReceivedRequest,
  type ServiceProcess,
} from '@agentplatform/testing';

export const logger = createLogger('webhook-test', 'silent');

export type WebhookClient = ReturnType<typeof webhookClient>;

/** A gRPC client of a running webhook service. */
export function webhookClient(service: ServiceProcess) {
  return createGrpcClient(webhookV1.WebhookServiceDefinition, openChannel(`127.0.0.1:${service.ready!.grpc_port}`), {
    deadlineMs: 15_000,
  });
}

/**
 * Produces events the way every service does: stored in an outbox in a producer's own database,
 * relayed to the platform's Kafka topic.
 */
export class EventProducer {
  private constructor(
    private readonly connection: Connection,
    private readonly outbox: Outbox,
    private readonly relay: OutboxRelay,
  ) {}

  static async start(platform: Platform): Promise<EventProducer> {
    const connection = await mongoose
      .createConnection(platform.mongoUri, { dbName: `producer_${platform.suffix}` })
      .asPromise();
    const outbox = await Outbox.open(connection);
    const kafka = createKafka({ brokers: platform.kafkaBrokers, clientId: 'webhook-test', logger });
    const relay = new OutboxRelay({ outbox, kafka, topic: platform.topic, logger, pollIntervalMs: 50 });
    relay.start();
    return new EventProducer(connection, outbox, relay);
  }

  async emit<T extends EventType>(type: T, tenantId: string, data: EventData[T]): Promise<EventEnvelope<T>> {
    const event = createEvent(type, tenantId, data);
    await this.outbox.publish([event]);
    return event;
  }

  async emitMany(events: EventEnvelope[]): Promise<void> {
    await this.outbox.publish(events);
  }

  async stop(): Promise<void> {
    await this.relay.stop();
    await this.connection.close();
  }
}

export const tenant = () => newId('ten');

export const sampleData = {
  agentCreated: { agent_id: 'agt_1', name: 'Bot', type: 'support', status: 'active' },
  messageCreated: { agent_id: 'agt_1', conversation_id: 'ses_1', message_id: 'msg_1', content: 'hi' },
  messageCompleted: {
    agent_id: 'agt_1',
    conversation_id: 'ses_1',
    message_id: 'msg_1',
    content: 'hello',
    tokens_used: 12,
    tool_calls: 0,
    latency_ms: 30,
  },
  executionCompleted: {
    workflow_id: 'wf_1',
    execution_id: 'exe_1',
    trigger: 'manual',
    duration_ms: 12,
    output: {},
    output_truncated: false,
    execution_url: '/api/v1/workflows/wf_1/executions/exe_1',
  },
  executionStarted: { workflow_id: 'wf_1', execution_id: 'exe_1', trigger: 'manual' },
  creditsLow: { balance: 50, threshold: 100 },
} as const;

/** The documented X-Service-Signature algorithm, written out independently of the service's code. */
export function expectedServiceSignature(secret: string, timestamp: string, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/** The Standard Webhooks signature: base64 HMAC-SHA256 of "<id>.<t>.<body>", keyed by the decoded whsec_ secret. */
export function expectedStandardSignature(secret: string, id: string, timestamp: string, body: string): string {
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
  return createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
}

export function eventIdsOf(requests: readonly ReceivedRequest[]): string[] {
  return requests.map((r) => (JSON.parse(r.body) as { id: string }).id);
}

export { setTimeout as sleep } from 'node:timers/promises';

/** What every suite here starts: a platform, an event producer, a receiver and a gRPC client. */
export interface WebhookHarness {
  platform: Platform;
  producer: EventProducer;
  receiver: Receiver;
  client: WebhookClient;
  stop(): Promise<void>;
}

export async function startWebhookHarness(options: PlatformOptions): Promise<WebhookHarness> {
  const platform = await startPlatform(options);
  let producer: EventProducer | undefined;
  let receiver: Receiver | undefined;
  const stop = async () => {
    await producer?.stop();
    await receiver?.close();
    await platform.stop();
  };
  try {
    producer = await EventProducer.start(platform);
    receiver = await Receiver.start();
  } catch (error) {
    await stop();
    throw error;
  }
  return { platform, producer, receiver, client: webhookClient(platform.service('webhook')), stop };
}
