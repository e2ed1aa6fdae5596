import { Kafka, logLevel, type Consumer } from 'kafkajs';
import type { Platform } from './platform.js';
import { waitFor } from './wait.js';

/**
 * An event as it travels on the topic (the envelope of docs/api-guide.md, "Events and webhooks"). Typed loosely here:
 * the events package depends on this one for its own tests, so this one cannot import it.
 */
export interface TappedEvent {
  id: string;
  type: string;
  tenant_id: string;
  created_at: string;
  api_version: string;
  data: Record<string, any>;
  /** Not part of the envelope: the request-id header the event travelled with, when it had one. */
  request_id?: string;
}

/** Reads a platform's events topic from the beginning and keeps every envelope it sees. */
export class EventTap {
  readonly events: TappedEvent[] = [];

  private constructor(private readonly consumer: Consumer) {}

  static async start(platform: Platform, label: string): Promise<EventTap> {
    const kafka = new Kafka({ clientId: `tap-${label}`, brokers: platform.kafkaBrokers, logLevel: logLevel.NOTHING });
    const consumer = kafka.consumer({ groupId: `tap-${label}-${platform.suffix}` });
    const tap = new EventTap(consumer);
    await consumer.connect();
    // The services create the topic in the background; wait until it exists.
    const admin = kafka.admin();
    await admin.connect();
    await waitFor(async () => (await admin.listTopics()).includes(platform.topic), {
      timeoutMs: 30_000,
      what: 'events topic',
    });
    await admin.disconnect();
    await consumer.subscribe({ topic: platform.topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        if (!message.value) return;
        const event = JSON.parse(message.value.toString()) as TappedEvent;
        const requestId = message.headers?.['request-id'];
        if (requestId) event.request_id = requestId.toString();
        tap.events.push(event);
      },
    });
    return tap;
  }

  find(type: string, match: (event: TappedEvent) => boolean = () => true): TappedEvent | undefined {
    return this.events.find((e) => e.type === type && match(e));
  }

  filter(match: (event: TappedEvent) => boolean): TappedEvent[] {
    return this.events.filter(match);
  }

  wait(type: string, match: (event: TappedEvent) => boolean = () => true): Promise<TappedEvent> {
    return waitFor(() => this.find(type, match), { timeoutMs: 30_000, what: `event ${type}` });
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }
}
