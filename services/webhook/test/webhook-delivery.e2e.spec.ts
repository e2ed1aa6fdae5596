import { createEvent, createKafka, EVENT_HEADERS } from '@agentplatform/events';
import { assertWebhookSignature, verifyWebhookSignature, WebhookSignatureError } from '@agentplatform/sdk';
import { Receiver, waitFor } from '@agentplatform/testing';
import { deliverySuite, SCHEDULE, TIMEOUT_MS } from './delivery-suite';
import {
  eventIdsOf,
  expectedServiceSignature,
  expectedStandardSignature,
  logger,
  sampleData,
  sleep,
  tenant,
} from './support';

/**
 * Events delivered by the webhook service: signatures, subscriptions, retries, repeated events,
 * endpoints that answer badly and endpoints that fail for good. (Managing webhooks, test sends,
 * rotation and redelivery: webhook-management.e2e.spec.ts.)
 */
describe('webhook deliveries', () => {
  const { harness, createHook, deliveryStatus } = deliverySuite();

  describe('delivering events', () => {
    it('delivers an event signed with the documented algorithms and headers', async () => {
      const tenantId = tenant();
      const { webhook, signingSecret } = await createHook(tenantId, '/signed', ['agent.created']);
      const event = await harness.producer.emit('agent.created', tenantId, sampleData.agentCreated);
      const [request] = await harness.receiver.waitForRequests(1, { path: '/signed' });

      expect(request.method).toBe('POST');
      expect(request.headers['content-type']).toBe('application/json');
      expect(JSON.parse(request.body)).toEqual(event);
      expect(request.headers['x-service-event-id']).toBe(event.id);
      expect(request.headers['x-service-event-type']).toBe('agent.created');

      const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(request.headers['x-service-signature']);
      expect(match).not.toBeNull();
      const [, t, v1] = match!;
      expect(Math.abs(Number(t) - Date.now() / 1000)).toBeLessThan(30);
      expect(v1).toBe(expectedServiceSignature(signingSecret, t, request.body));

      expect(request.headers['webhook-id']).toBe(event.id);
      expect(request.headers['webhook-timestamp']).toBe(t);
      expect(request.headers['webhook-signature']).toBe(
        `v1,${expectedStandardSignature(signingSecret, event.id, t, request.body)}`,
      );

      // The SDK accepts the real delivery and rejects anything altered.
      expect(verifyWebhookSignature(request.body, request.headers['x-service-signature'], signingSecret)).toBe(true);
      expect(
        verifyWebhookSignature(
          request.body.replace('Bot', 'Bob'),
          request.headers['x-service-signature'],
          signingSecret,
        ),
      ).toBe(false);
      expect(
        verifyWebhookSignature(
          request.body,
          request.headers['x-service-signature'],
          'whsec_wrongwrongwrongwrongwrongwrongwrong=',
        ),
      ).toBe(false);
      expect(() =>
        assertWebhookSignature(
          request.body,
          request.headers['x-service-signature'],
          signingSecret,
          300,
          Date.now() + 301_000,
        ),
      ).toThrow(WebhookSignatureError);

      const [delivery] = await deliveryStatus(tenantId, webhook!.id, 'delivered');
      expect(delivery).toMatchObject({
        eventId: event.id,
        eventType: 'agent.created',
        attempts: 1,
        responseStatus: 200,
      });
      expect(delivery.deliveredAt).toBeDefined();
      expect(delivery.responseTimeMs).toBeGreaterThanOrEqual(0);
    });

    it("matches prefix, alias and * subscriptions and delivers nothing else, nor other tenants' events", async () => {
      const tenantId = tenant();
      const prefix = await createHook(tenantId, '/prefix', ['agent.message']);
      const alias = await createHook(tenantId, '/alias', ['workflow.completed']);
      await createHook(tenantId, '/all', ['*']);
      const events = [
        await harness.producer.emit('agent.message.created', tenantId, sampleData.messageCreated),
        await harness.producer.emit('agent.message.completed', tenantId, sampleData.messageCompleted),
        await harness.producer.emit('workflow.execution.completed', tenantId, sampleData.executionCompleted),
        await harness.producer.emit('workflow.execution.started', tenantId, sampleData.executionStarted),
        await harness.producer.emit('agent.created', tenantId, sampleData.agentCreated),
        await harness.producer.emit('billing.credits.low', tenantId, sampleData.creditsLow),
      ];
      await harness.producer.emit('agent.message.created', tenant(), sampleData.messageCreated);

      const all = await harness.receiver.waitForRequests(6, { path: '/all' });
      expect(eventIdsOf(all).sort()).toEqual(events.map((e) => e.id).sort());
      await harness.receiver.waitForRequests(2, { path: '/prefix' });
      await harness.receiver.waitForRequests(1, { path: '/alias' });
      await sleep(1_000);
      expect(eventIdsOf(harness.receiver.to('/prefix')).sort()).toEqual([events[0].id, events[1].id].sort());
      expect(eventIdsOf(harness.receiver.to('/alias'))).toEqual([events[2].id]);
      expect(harness.receiver.to('/all')).toHaveLength(6);
      const prefixLog = await harness.client.listDeliveries({ tenantId, webhookId: prefix.webhook!.id, limit: 10 });
      expect(prefixLog.items.map((d) => d.eventType).sort()).toEqual([
        'agent.message.completed',
        'agent.message.created',
      ]);
      const aliasLog = await harness.client.listDeliveries({ tenantId, webhookId: alias.webhook!.id, limit: 10 });
      expect(aliasLog.items.map((d) => d.eventType)).toEqual(['workflow.execution.completed']);
    });

    it('delivers to a flaky endpoint after retries, logging every attempt', async () => {
      const tenantId = tenant();
      harness.receiver.on('/flaky', Receiver.sequence([500, 503, 200], { body: 'try later' }));
      const { webhook } = await createHook(tenantId, '/flaky', ['agent.created']);
      const event = await harness.producer.emit('agent.created', tenantId, sampleData.agentCreated);
      const requests = await harness.receiver.waitForRequests(3, { path: '/flaky' });
      expect(eventIdsOf(requests)).toEqual([event.id, event.id, event.id]);
      expect(requests.map((r) => r.headers['x-service-delivery-attempt'])).toEqual(['1', '2', '3']);
      expect(requests[1].receivedAt - requests[0].receivedAt).toBeGreaterThanOrEqual(SCHEDULE[1]);
      expect(requests[2].receivedAt - requests[1].receivedAt).toBeGreaterThanOrEqual(SCHEDULE[2]);

      const [delivery] = await deliveryStatus(tenantId, webhook!.id, 'delivered');
      expect(delivery).toMatchObject({ attempts: 3, responseStatus: 200 });
      const detail = await harness.client.getDelivery({ tenantId, webhookId: webhook!.id, deliveryId: delivery.id });
      expect(detail.attempts.map((a) => [a.number, a.responseStatus, a.success])).toEqual([
        [1, 500, false],
        [2, 503, false],
        [3, 200, true],
      ]);
      expect(detail.attempts[0]).toMatchObject({
        responseBody: 'try later',
        responseHeaders: expect.objectContaining({ 'content-type': 'text/plain' }),
      });
      await sleep(1_500);
      expect(harness.receiver.to('/flaky')).toHaveLength(3);
    });

    it('counts its database calls per collection on /metrics: retries come from the due entries, never a scan', async () => {
      const port = harness.platform.service('webhook').ready!.metrics_port!;
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const count = (collection: string, command: string) =>
        Number(
          new RegExp(
            `^mongo_commands_total\\{[^}]*collection="${collection}",command="${command}"[^}]*\\} (\\d+)`,
            'm',
          ).exec(text)?.[1] ?? 0,
        );
      // The poll of the retries above, every 100 ms, and the claims of their attempts.
      expect(count('delivery_due', 'findOne')).toBeGreaterThan(10);
      expect(count('deliveries', 'bulkWrite')).toBeGreaterThan(0);
      expect(count('deliveries', 'distinct')).toBe(0);
    });

    it('honours Retry-After on 429', async () => {
      const tenantId = tenant();
      harness.receiver.on('/throttled', (_request, index) =>
        index === 0 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 },
      );
      await createHook(tenantId, '/throttled', ['*']);
      await harness.producer.emit('agent.created', tenantId, sampleData.agentCreated);
      const [first, second] = await harness.receiver.waitForRequests(2, { path: '/throttled' });
      expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(1_000);
    });

    it('records a network error as a failed attempt', async () => {
      const tenantId = tenant();
      const dead = await Receiver.start();
      const url = dead.url('/gone');
      await dead.close();
      const { webhook } = await harness.client.createWebhook({ tenantId, url, events: ['*'] });
      const result = await harness.client.testWebhook({ tenantId, id: webhook!.id, eventType: 'agent.created' });
      expect(result.success).toBe(false);
      expect(result.responseStatus).toBeUndefined();
      expect(result.error).toMatch(/ECONNREFUSED/);
      const detail = await harness.client.getDelivery({
        tenantId,
        webhookId: webhook!.id,
        deliveryId: result.deliveryId,
      });
      expect(detail.attempts[0]).toMatchObject({ success: false, error: expect.stringMatching(/ECONNREFUSED/) });
    });
  });

  describe('repeated events and endpoints that answer badly', () => {
    it('delivers an event that Kafka carries twice only once', async () => {
      const tenantId = tenant();
      const { webhook } = await createHook(tenantId, '/twice', ['*']);
      const kafka = createKafka({ brokers: harness.platform.kafkaBrokers, clientId: 'webhook-test-repeat', logger });
      const direct = kafka.producer();
      await direct.connect();
      try {
        const event = createEvent('agent.created', tenantId, sampleData.agentCreated);
        const message = {
          key: tenantId,
          value: JSON.stringify(event),
          headers: { [EVENT_HEADERS.type]: event.type, [EVENT_HEADERS.id]: event.id },
        };
        // Two sends, as a relay re-publishing after a crash would; the second may land in a later batch.
        await direct.send({ topic: harness.platform.topic, messages: [message] });
        await harness.receiver.waitForRequests(1, { path: '/twice' });
        await direct.send({ topic: harness.platform.topic, messages: [message] });
        const marker = await harness.producer.emit('agent.updated', tenantId, {
          agent_id: 'agt_1',
          changed: ['name'],
          status: 'active',
        });
        await waitFor(() => eventIdsOf(harness.receiver.to('/twice')).includes(marker.id), {
          what: 'a later event delivered',
        });
        await sleep(500);
        expect(eventIdsOf(harness.receiver.to('/twice')).filter((id) => id === event.id)).toHaveLength(1);
        const { items } = await harness.client.listDeliveries({ tenantId, webhookId: webhook!.id, limit: 10 });
        expect(items.filter((d) => d.eventId === event.id)).toHaveLength(1);
      } finally {
        await direct.disconnect();
      }
    });

    it('logs the first 4 KiB of a long answer', async () => {
      const tenantId = tenant();
      harness.receiver.on('/long', { status: 200, body: 'x'.repeat(20_000) });
      const { webhook } = await createHook(tenantId, '/long', ['*']);
      const result = await harness.client.testWebhook({ tenantId, id: webhook!.id, eventType: 'agent.created' });
      expect(result).toMatchObject({ success: true, responseStatus: 200 });
      const detail = await harness.client.getDelivery({
        tenantId,
        webhookId: webhook!.id,
        deliveryId: result.deliveryId,
      });
      expect(detail.attempts[0]!.responseBody).toBe('x'.repeat(4096));
    });

    it('records an endpoint that does not answer in time as a timeout', async () => {
      const tenantId = tenant();
      harness.receiver.on('/hang', { status: 200, delayMs: TIMEOUT_MS + 1_000 });
      const { webhook } = await createHook(tenantId, '/hang', ['*']);
      const started = Date.now();
      const result = await harness.client.testWebhook({ tenantId, id: webhook!.id, eventType: 'agent.created' });
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1_000);
      expect(result).toMatchObject({ success: false, error: 'timeout: no answer within the time limit' });
      expect(result.responseStatus).toBeUndefined();
      const detail = await harness.client.getDelivery({
        tenantId,
        webhookId: webhook!.id,
        deliveryId: result.deliveryId,
      });
      expect(detail.attempts[0]).toMatchObject({ success: false, error: 'timeout: no answer within the time limit' });
    });
  });

  describe('failing endpoints', () => {
    it('gives up after exactly 5 attempts, fails the webhook, sends nothing more until PATCH re-enables it, and recovers', async () => {
      const tenantId = tenant();
      const start = new Date();
      harness.receiver.on('/dead', { status: 500, body: 'down' });
      const dead = await createHook(tenantId, '/dead', ['agent']);
      await createHook(tenantId, '/witness', ['agent']);

      const first = await harness.producer.emit('agent.created', tenantId, sampleData.agentCreated);
      await harness.receiver.waitForRequests(5, { path: '/dead' });
      const [failedDelivery] = await deliveryStatus(tenantId, dead.webhook!.id, 'failed');
      expect(failedDelivery).toMatchObject({ eventId: first.id, attempts: 5, responseStatus: 500 });
      const failed = await waitFor(async () => {
        const w = await harness.client.getWebhook({ tenantId, id: dead.webhook!.id });
        return w.status === 'failed' ? w : undefined;
      });
      expect(failed.failureReason).toMatch(/5 attempts/);
      expect(failed.failedAt).toBeDefined();

      // Later events reach the healthy webhook of the tenant but not the failed one.
      const second = await harness.producer.emit('agent.updated', tenantId, {
        agent_id: 'agt_1',
        changed: ['name'],
        status: 'active',
      });
      await waitFor(() => eventIdsOf(harness.receiver.to('/witness')).includes(second.id), {
        what: 'witness got the later event',
      });
      await sleep(1_000);
      expect(harness.receiver.to('/dead')).toHaveLength(5);
      expect(
        (await harness.client.listDeliveries({ tenantId, webhookId: dead.webhook!.id, limit: 10 })).items,
      ).toHaveLength(1);
      await expect(
        harness.client.recover({ tenantId, webhookId: dead.webhook!.id, since: start.toISOString() }),
      ).rejects.toMatchObject({
        code: 'conflict',
      });

      // PATCH re-enables it: new events are delivered again.
      harness.receiver.on('/dead', { status: 200 });
      const enabled = await harness.client.updateWebhook({
        tenantId,
        id: dead.webhook!.id,
        status: 'active',
        events: undefined,
        metadata: undefined,
      });
      expect(enabled.status).toBe('active');
      expect(enabled.failedAt).toBeUndefined();
      const third = await harness.producer.emit('agent.created', tenantId, sampleData.agentCreated);
      await waitFor(() => eventIdsOf(harness.receiver.to('/dead')).includes(third.id), {
        what: 'delivery after re-enabling',
      });

      // Recovery sends the failed event again and the one missed while the webhook was failed.
      const recovered = await harness.client.recover({
        tenantId,
        webhookId: dead.webhook!.id,
        since: start.toISOString(),
      });
      expect(recovered).toEqual({ redelivered: 1, missed: 1 });
      await waitFor(
        () => {
          const ids = eventIdsOf(harness.receiver.to('/dead'));
          return ids.includes(second.id) && ids.filter((id) => id === first.id).length === 6;
        },
        { what: 'recovered deliveries' },
      );
      const delivered = await deliveryStatus(tenantId, dead.webhook!.id, 'delivered');
      expect(delivered.map((d) => d.eventId).sort()).toEqual([first.id, second.id, third.id].sort());
      expect(delivered.find((d) => d.eventId === first.id)!.attempts).toBe(6);
    });

    it('fails delivery and webhook at once on 410 Gone', async () => {
      const tenantId = tenant();
      harness.receiver.on('/gone', { status: 410 });
      const { webhook } = await createHook(tenantId, '/gone', ['*']);
      await harness.producer.emit('billing.credits.low', tenantId, sampleData.creditsLow);
      await harness.receiver.waitForRequests(1, { path: '/gone' });
      const [delivery] = await deliveryStatus(tenantId, webhook!.id, 'failed');
      expect(delivery.attempts).toBe(1);
      const fetched = await waitFor(async () => {
        const w = await harness.client.getWebhook({ tenantId, id: webhook!.id });
        return w.status === 'failed' ? w : undefined;
      });
      expect(fetched.failureReason).toMatch(/410/);
      await sleep(800);
      expect(harness.receiver.to('/gone')).toHaveLength(1);
    });
  });
});
