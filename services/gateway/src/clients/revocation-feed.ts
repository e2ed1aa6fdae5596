import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Consumer, ConsumerRunConfig, Kafka } from 'kafkajs';
import {
  CONSUMER_GROUP_TIMING,
  accessTopicOf,
  restartAfterFatalCrash,
  type CrashRestarts,
  ensureTopicInBackground,
  parseAccessEvent,
  type AccessEvent,
} from '@agentplatform/events';
import type { Logger } from '@agentplatform/service-kit';

export interface RevocationListener {
  /** A revocation to apply to what this replica cached. */
  revoke(event: AccessEvent): void;
  /** Whether revocations reach this replica now; caches may only be kept while they do. */
  setLive(live: boolean): void;
}

/**
 * Identity's access events (docs/design.md section 4), read by every gateway replica in full: each
 * replica has its own consumer group (a random suffix) that starts at the topic's end, since
 * what happened before the replica started cannot be in its caches. The feed is "live" once the
 * group has joined and fetched (its position is fixed); it stops being live on a rebalance, a
 * crash or a disconnect, and the listener then keeps no cache until it is live again, so no
 * cached credential can outlive a revocation this replica did not hear about.
 */
export class RevocationFeed {
  readonly groupId = `gateway-access-${hostname()}-${randomBytes(4).toString('hex')}`;
  private readonly consumer: Consumer;
  private readonly restarts: CrashRestarts;
  private stopped = false;
  private joined = false;

  constructor(
    private readonly kafka: Kafka,
    private readonly eventsTopic: string,
    private readonly listener: RevocationListener,
    private readonly logger: Logger,
  ) {
    this.consumer = kafka.consumer({
      groupId: this.groupId,
      sessionTimeout: CONSUMER_GROUP_TIMING.sessionTimeout,
      heartbeatInterval: CONSUMER_GROUP_TIMING.heartbeatInterval,
      // A revocation is answered at once (kafkajs' minBytes is 1); the wait only sets how often an
      // idle feed fetches: twice a second, as Kafka's own consumer does, not ten times (each empty
      // fetch allocates; docs/performance.md, "Idle memory: the consumers' empty fetches").
      maxWaitTimeInMs: 500,
      allowAutoTopicCreation: false,
      retry: { ...CONSUMER_GROUP_TIMING.retry },
    });
    this.restarts = restartAfterFatalCrash(this.consumer, logger);
    const { GROUP_JOIN, FETCH, REBALANCING, CRASH, DISCONNECT, STOP } = this.consumer.events;
    this.consumer.on(GROUP_JOIN, () => {
      this.joined = true;
    });
    this.consumer.on(FETCH, () => {
      if (this.joined) this.listener.setLive(true);
    });
    for (const event of [REBALANCING, CRASH, DISCONNECT, STOP]) {
      this.consumer.on(event, () => {
        this.joined = false;
        this.listener.setLive(false);
      });
    }
  }

  /** Starts in the background: the gateway serves (without caches) while Kafka is unreachable. */
  start(): void {
    const topic = accessTopicOf(this.eventsTopic);
    const begin = async () => {
      await ensureTopicInBackground({ logger: this.logger }, this.kafka, {
        KAFKA_TOPIC: topic,
        KAFKA_TOPIC_PARTITIONS: 1,
      });
      if (this.stopped) return;
      await this.consumer.connect();
      await this.consumer.subscribe({ topic, fromBeginning: false });
      const runConfig: ConsumerRunConfig = {
        eachMessage: async ({ message }) => {
          const event = parseAccessEvent(message.value);
          if (!event) return;
          this.logger.debug({ type: event.type, event_id: event.id }, 'access revoked');
          this.listener.revoke(event);
        },
      };
      this.restarts.runWith(runConfig);
      await this.consumer.run(runConfig);
      this.logger.info({ topic, group: this.groupId }, 'consuming access events');
    };
    begin().catch((error) => {
      this.logger.error({ err: error }, 'access event feed failed; credentials are not cached');
      this.listener.setLive(false);
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.restarts.stop();
    await this.consumer.disconnect();
  }
}
