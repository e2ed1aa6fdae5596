import { randomBytes } from 'node:crypto';
import mongoose, { type Connection } from 'mongoose';
import {
  KafkaJSConnectionError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
  type Kafka,
  type Producer,
  type ProducerRecord,
} from 'kafkajs';
import { createLogger } from '@agentplatform/service-kit';
import { waitFor } from '@agentplatform/testing';
import { createEvent, createKafka, DeadLetters, Outbox, OutboxRelay, type DeadLetterReason } from '../src';
import type { EventEnvelope } from '../src/event-types';

/**
 * A record that can never be published leaves the outbox for the dead letters, and the records
 * stored after it are published all the same: against the real broker (which refuses a record
 * over a topic's `max.message.bytes`) and the MongoDB stand-in.
 */
describe('outbox relay: dead letters', () => {
  const logger = createLogger('relay-dead-letters-test', 'silent');
  const suffix = randomBytes(4).toString('hex');
  let connection: Connection;

  beforeAll(async () => {
    connection = await mongoose
      .createConnection(process.env.MONGODB_URI!, { dbName: `relay_dead_letters_${suffix}` })
      .asPromise();
  });

  afterAll(async () => {
    await connection?.close();
  });

  function event(tenantId: string, content: string): EventEnvelope<'agent.message.created'> {
    return createEvent('agent.message.created', tenantId, {
      agent_id: 'agt_1',
      conversation_id: 'ses_1',
      message_id: 'msg_1',
      content,
    });
  }

  function countingDeadLetters() {
    const counts: Partial<Record<DeadLetterReason, number>> = {};
    return { counts, inc: ({ reason }: { reason: DeadLetterReason }) => (counts[reason] = (counts[reason] ?? 0) + 1) };
  }

  it('moves what the broker refuses for good, and what is over the producer limit, to the dead letters; the rest is published', async () => {
    const kafka = createKafka({ brokers: process.env.KAFKA_BROKERS!.split(','), clientId: 'relay-dl-test', logger });
    // One partition, so every record below meets the one before it in the same produce request;
    // a limit of 64 KiB on this topic makes the broker itself refuse a 100 KB record.
    const topic = `relay-dead-letters.${suffix}`;
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      topics: [{ topic, numPartitions: 1, configEntries: [{ name: 'max.message.bytes', value: '65536' }] }],
      waitForLeaders: true,
    });
    await admin.disconnect();

    const outbox = await Outbox.open(connection);
    const deadLetters = await DeadLetters.open(connection);
    const counter = countingDeadLetters();
    const before = event('ten_a', 'before');
    const refused = event('ten_big', 'x'.repeat(100_000));
    const oversized = event('ten_big', 'y'.repeat(1_100_000));
    const after = [event('ten_a', 'after 1'), event('ten_b', 'after 2')];
    // Stored before the relay starts: it claims them as one batch, in this order.
    await outbox.publish([before, refused, oversized, ...after]);

    const seen: string[] = [];
    const consumer = kafka.consumer({ groupId: `relay-dl-${suffix}` });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        seen.push((JSON.parse(message.value!.toString()) as { id: string }).id);
      },
    });
    const relay = new OutboxRelay({
      outbox,
      deadLetters,
      deadLetterCounter: counter,
      kafka,
      topic,
      logger,
      pollIntervalMs: 50,
    });
    const startedAt = Date.now();
    relay.start();
    try {
      await waitFor(() => [before, ...after].every((e) => seen.includes(e.id)), {
        timeoutMs: 30_000,
        what: 'the records around the refused ones published',
      });
      const publishedWithinMs = Date.now() - startedAt;
      await waitFor(async () => (await outbox.model.countDocuments()) === 0, { what: 'the outbox emptied' });

      const letters = await deadLetters.model.find().lean();
      expect(
        letters
          .map((l) => ({ id: l._id, reason: l.reason, type: l.envelope.type }))
          .sort((a, b) => a.reason.localeCompare(b.reason)),
      ).toEqual([
        { id: refused.id, reason: 'rejected', type: 'agent.message.created' },
        { id: oversized.id, reason: 'too_large', type: 'agent.message.created' },
      ]);
      expect(letters.find((l) => l._id === refused.id)!.error).toMatch(/MESSAGE_TOO_LARGE/);
      expect(letters.find((l) => l._id === refused.id)!.envelope).toEqual(JSON.parse(JSON.stringify(refused)));
      expect(counter.counts).toEqual({ rejected: 1, too_large: 1 });
      expect(seen).not.toContain(refused.id);
      expect(seen).not.toContain(oversized.id);
      // The refused record did not hold the others back for a retry schedule.
      expect(publishedWithinMs).toBeLessThan(15_000);
      process.stdout.write(`DEAD-LETTERS: records behind the refused ones published after ${publishedWithinMs} ms\n`);

      // Expired dead letters are pruned; recent ones are kept.
      await deadLetters.model.updateOne(
        { _id: refused.id },
        { $set: { dead_at: new Date(Date.now() - 15 * 86_400_000) } },
      );
      expect(await deadLetters.prune(new Date(Date.now() - 14 * 86_400_000), 1)).toBe(1);
      expect((await deadLetters.model.find().lean()).map((l) => l._id)).toEqual([oversized.id]);
    } finally {
      await relay.stop();
      await consumer.disconnect();
    }
  }, 60_000);

  it('publishes a batch larger than the broker limit whole, in order, none dead-lettered', async () => {
    const kafka = createKafka({ brokers: process.env.KAFKA_BROKERS!.split(','), clientId: 'relay-chunk-test', logger });
    // The broker's own limit (1 MiB, deploy/local/infra.js); one partition takes the whole batch.
    const topic = `relay-chunks.${suffix}`;
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    await admin.disconnect();
    const own = await mongoose
      .createConnection(process.env.MONGODB_URI!, { dbName: `relay_chunks_${suffix}` })
      .asPromise();
    const outbox = await Outbox.open(own);
    const deadLetters = await DeadLetters.open(own);
    // Six events of 250 KB (each under the 256 KiB an event may carry): 1.5 MB in one batch.
    const events = Array.from({ length: 6 }, (_, i) => event('ten_a', String(i).repeat(250_000)));
    await outbox.publish(events);
    const seen: string[] = [];
    const consumer = kafka.consumer({ groupId: `relay-chunks-${suffix}` });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        seen.push((JSON.parse(message.value!.toString()) as { id: string }).id);
      },
    });
    const relay = new OutboxRelay({ outbox, deadLetters, kafka, topic, logger, pollIntervalMs: 50 });
    relay.start();
    try {
      await waitFor(() => seen.length === events.length, { timeoutMs: 30_000, what: 'all six published' });
      expect(seen).toEqual(events.map((e) => e.id));
      expect(await deadLetters.model.countDocuments()).toBe(0);
      await waitFor(async () => (await outbox.model.countDocuments()) === 0, { what: 'the outbox emptied' });
    } finally {
      await relay.stop();
      await consumer.disconnect();
      await own.close();
    }
  }, 60_000);

  /**
   * A producer that refuses one event id with a retriable broker error (after kafkajs' own
   * retries), or fails every send as an unreachable broker would; records what it published.
   */
  function fakeKafka(behaviour: { refuse?: string; unreachable?: () => boolean }) {
    const published: string[] = [];
    const sends: string[][] = [];
    const producer = {
      connect: async () => undefined,
      disconnect: async () => undefined,
      send: async (record: ProducerRecord) => {
        const ids = record.messages.map((m) => (JSON.parse(String(m.value)) as { id: string }).id);
        sends.push(ids);
        if (behaviour.unreachable?.()) throw new KafkaJSConnectionError('Connection error: connect ECONNREFUSED');
        if (behaviour.refuse && ids.includes(behaviour.refuse)) {
          const refusal = new KafkaJSProtocolError({
            type: 'NOT_ENOUGH_REPLICAS',
            code: 19,
            retriable: true,
            message: 'Messages are rejected since there are fewer in-sync replicas than required',
          } as unknown as Error);
          throw new KafkaJSNumberOfRetriesExceeded(refusal, { retryCount: 5, retryTime: 100 });
        }
        published.push(...ids);
        return [];
      },
    } as unknown as Producer;
    return { kafka: { producer: () => producer } as unknown as Kafka, published, sends };
  }

  it('gives a record the broker keeps refusing its own backoff, sends it alone, and dead-letters it at its tenth refusal', async () => {
    const dbName = `relay_attempts_${suffix}`;
    const own = await mongoose.createConnection(process.env.MONGODB_URI!, { dbName }).asPromise();
    try {
      const outbox = await Outbox.open(own);
      const deadLetters = await DeadLetters.open(own);
      const counter = countingDeadLetters();
      const poison = event('ten_a', 'poison');
      const { kafka, published, sends } = fakeKafka({ refuse: poison.id });
      const first = event('ten_a', 'first');
      await outbox.publish([poison, first]);
      const relay = new OutboxRelay({
        outbox,
        deadLetters,
        deadLetterCounter: counter,
        kafka,
        topic: 'unused',
        logger,
        pollIntervalMs: 20,
        retryBaseMs: 10,
      });
      relay.start();
      try {
        // Records stored while the poison waits its backoff go out without it.
        const later = [event('ten_a', 'later 1'), event('ten_b', 'later 2')];
        await outbox.publish(later);
        await waitFor(() => [first, ...later].every((e) => published.includes(e.id)), {
          what: 'the records around the refused one published',
        });
        await waitFor(async () => (await deadLetters.model.countDocuments({ _id: poison.id })) === 1, {
          timeoutMs: 30_000,
          what: 'the refused record dead-lettered',
        });
        const letter = (await deadLetters.model.findById(poison.id).lean())!;
        expect(letter).toMatchObject({ reason: 'attempts', attempts: 10 });
        expect(letter.error).toMatch(/NOT_ENOUGH_REPLICAS/);
        expect(counter.counts).toEqual({ attempts: 1 });
        expect(await outbox.model.countDocuments()).toBe(0);
        // Ten sends carried it: the first with `first` (refused together), nine more alone.
        const carrying = sends.filter((s) => s.includes(poison.id));
        expect(carrying).toHaveLength(10);
        expect(carrying.slice(1).every((s) => s.length === 1)).toBe(true);
        expect(published).not.toContain(poison.id);
      } finally {
        await relay.stop();
      }
    } finally {
      await own.close();
    }
  }, 60_000);

  it('counts no attempt while the broker does not answer, and publishes once it does', async () => {
    const own = await mongoose
      .createConnection(process.env.MONGODB_URI!, { dbName: `relay_outage_${suffix}` })
      .asPromise();
    try {
      const outbox = await Outbox.open(own);
      const deadLetters = await DeadLetters.open(own);
      let down = true;
      const { kafka, published, sends } = fakeKafka({ unreachable: () => down });
      const waiting = event('ten_a', 'during the outage');
      await outbox.publish([waiting]);
      const relay = new OutboxRelay({ outbox, deadLetters, kafka, topic: 'unused', logger, pollIntervalMs: 20 });
      relay.start();
      try {
        await waitFor(() => sends.length >= 5, { timeoutMs: 30_000, what: 'five failed sends' });
        const stored = (await outbox.model.findById(waiting.id).lean())!;
        expect(stored.attempts).toBe(0);
        down = false;
        await waitFor(() => published.includes(waiting.id), { timeoutMs: 10_000, what: 'published after the outage' });
        expect(await deadLetters.model.countDocuments()).toBe(0);
      } finally {
        await relay.stop();
      }
    } finally {
      await own.close();
    }
  }, 60_000);
});
