import path from 'node:path';
import { Receiver, ServiceProcess, suiteFixture, waitFor, type ReceivedRequest } from '@agentplatform/testing';
import type { EventEnvelope } from '@agentplatform/events';
import { eventIdsOf, sampleData, sleep, tenant, webhookClient, startWebhookHarness } from './support';

/** The first retry waits long enough for a dispatcher to be killed and restarted in between. */
const SCHEDULE = [0, 3_000, 300, 300, 300];
const DISPATCHER_ENV = { WEBHOOK_RETRY_SCHEDULE_MS: SCHEDULE.join(','), WEBHOOK_POLL_INTERVAL_MS: '100' };

/** Fails the first `failures` requests carrying each event id, then answers 200. */
function failFirst(receiver: Receiver, failures: number) {
  return (request: ReceivedRequest) => {
    const id = (JSON.parse(request.body) as { id: string }).id;
    // Only this path counts: the receiver's port may be reached by strays from other suites on the machine.
    const seen = eventIdsOf(receiver.to(request.path)).filter((x) => x === id).length;
    return { status: seen <= failures ? 500 : 200 };
  };
}

function countById(requests: readonly ReceivedRequest[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const id of eventIdsOf(requests)) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}

describe('webhook dispatcher replicas and restarts', () => {
  const harness = suiteFixture(() =>
    startWebhookHarness({ services: ['webhook'], serviceEnv: { webhook: DISPATCHER_ENV } }),
  );

  it('loses nothing and sends nothing twice when the dispatcher is killed mid-retry', async () => {
    const tenantId = tenant();
    harness.receiver.on('/restart', failFirst(harness.receiver, 1));
    const { webhook } = await harness.client.createWebhook({
      tenantId,
      url: harness.receiver.url('/restart'),
      events: ['*'],
    });
    const events: EventEnvelope[] = [];
    for (let i = 0; i < 10; i += 1)
      events.push(await harness.producer.emit('agent.created', tenantId, sampleData.agentCreated));
    await harness.receiver.waitForRequests(10, { path: '/restart' });
    // Every first attempt is stored as failed and waiting for its retry.
    await waitFor(
      async () => {
        const { items } = await harness.client.listDeliveries({ tenantId, webhookId: webhook!.id, limit: 20 });
        return items.length === 10 && items.every((d) => d.status === 'pending' && d.attempts === 1);
      },
      { what: 'first attempts stored' },
    );

    const dispatcher = harness.platform.service('webhook');
    await dispatcher.kill();
    // An event produced while no dispatcher runs waits in Kafka.
    const whileDown = await harness.producer.emit('agent.updated', tenantId, {
      agent_id: 'agt_1',
      changed: ['name'],
      status: 'active',
    });
    await dispatcher.start();

    // Retries come from the database and are sent as soon as the restarted process polls.
    await waitFor(
      async () => {
        const { items } = await harness.client.listDeliveries({ tenantId, webhookId: webhook!.id, limit: 20 });
        return events.every((e) => items.some((d) => d.eventId === e.id && d.status === 'delivered'));
      },
      { what: 'retries delivered after the restart' },
    );
    // The event waits in Kafka until the group hands the dead member's partitions over (its session times out).
    await waitFor(
      async () => {
        const { items } = await harness.client.listDeliveries({ tenantId, webhookId: webhook!.id, limit: 20 });
        return items.length === 11 && items.every((d) => d.status === 'delivered');
      },
      { timeoutMs: 75_000, intervalMs: 250, what: 'the event produced while down delivered' },
    );
    await sleep(1_000);
    const counts = countById(harness.receiver.to('/restart'));
    for (const event of events) expect(counts.get(event.id)).toBe(2);
    // Its first attempt fails too, so it is retried once.
    expect(counts.get(whileDown.id)).toBe(2);
    expect(harness.receiver.to('/restart')).toHaveLength(22);
  });

  it('never double-sends with two dispatcher processes on one database and consumer group', async () => {
    const second = new ServiceProcess(
      'webhook',
      {
        ...process.env,
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'info',
        MONGODB_URI: harness.platform.mongoUri,
        MONGODB_DATABASE: harness.platform.database('webhook'),
        KAFKA_BROKERS: harness.platform.kafkaBrokers.join(','),
        KAFKA_TOPIC: harness.platform.topic,
        KAFKA_TOPIC_PARTITIONS: '3',
        KAFKA_CONSUMER_GROUP: `webhook-dispatcher-${harness.platform.suffix}`,
        GRPC_HOST: '127.0.0.1',
        GRPC_PORT: '0',
        METRICS_PORT: '0',
        ALLOW_PRIVATE_URLS: 'true',
        DATA_ENCRYPTION_KEY: harness.platform.dataEncryptionKey,
        ...DISPATCHER_ENV,
      },
      path.join(harness.platform.logDir, 'webhook-2.log'),
    );
    await second.start();
    try {
      harness.receiver.on('/pair', failFirst(harness.receiver, 2));
      const tenants = Array.from({ length: 6 }, () => tenant());
      for (const tenantId of tenants) {
        await harness.client.createWebhook({ tenantId, url: harness.receiver.url('/pair'), events: ['agent'] });
      }
      // Webhooks made through either replica are the same webhooks.
      const secondClient = webhookClient(second);
      expect((await secondClient.listWebhooks({ tenantId: tenants[0], page: 1, perPage: 10 })).items).toHaveLength(1);

      const events: EventEnvelope[] = [];
      for (let round = 0; round < 5; round += 1) {
        for (const tenantId of tenants)
          events.push(await harness.producer.emit('agent.created', tenantId, sampleData.agentCreated));
      }
      await harness.receiver.waitForRequests(events.length * 3, { path: '/pair', timeoutMs: 45_000 });
      await sleep(1_500);
      const requests = harness.receiver.to('/pair');
      const counts = countById(requests);
      expect(counts.size).toBe(events.length);
      for (const event of events) expect(counts.get(event.id)).toBe(3);
      for (const event of events) {
        const attempts = requests
          .filter((r) => JSON.parse(r.body).id === event.id)
          .map((r) => r.headers['x-service-delivery-attempt']);
        expect(attempts).toEqual(['1', '2', '3']);
      }
      for (const tenantId of tenants) {
        const [hook] = (await harness.client.listWebhooks({ tenantId, page: 1, perPage: 10 })).items;
        const { items } = await harness.client.listDeliveries({ tenantId, webhookId: hook.id, limit: 10 });
        expect(items.map((d) => [d.status, d.attempts])).toEqual(Array(5).fill(['delivered', 3]));
      }
    } finally {
      await second.stop();
    }
  });
});
