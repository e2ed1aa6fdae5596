import { verifyWebhookSignature } from '@agentplatform/sdk';
import { Receiver } from '@agentplatform/testing';
import { deliverySuite } from './delivery-suite';
import { eventIdsOf, expectedServiceSignature, expectedStandardSignature, sampleData, sleep, tenant } from './support';

/**
 * Webhooks as their owners manage them through the service's API: create, update, delete, test
 * sends, secret rotation and redelivery. (Event deliveries: webhook-delivery.e2e.spec.ts.)
 */
describe('webhook management', () => {
  const { harness, createHook, deliveryStatus } = deliverySuite();

  describe('managing webhooks', () => {
    it('creates an active webhook and shows its signing secret only at creation', async () => {
      const tenantId = tenant();
      const created = await createHook(tenantId, '/manage', ['agent.created']);
      expect(created.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(created.webhook).toMatchObject({
        url: harness.receiver.url('/manage'),
        events: ['agent.created'],
        status: 'active',
      });
      const fetched = await harness.client.getWebhook({ tenantId, id: created.webhook!.id });
      expect(JSON.stringify(fetched)).not.toContain(created.signingSecret);
      const list = await harness.client.listWebhooks({ tenantId, page: 1, perPage: 20 });
      expect(list.items.map((w) => w.id)).toEqual([created.webhook!.id]);
      expect(JSON.stringify(list)).not.toContain(created.signingSecret);
    });

    it('keeps a supplied secret as the signing secret', async () => {
      const created = await createHook(tenant(), '/own-secret', ['*'], 'my-own-secret-value-123');
      expect(created.signingSecret).toBe('my-own-secret-value-123');
    });

    it('refuses bad URLs, unknown event names and weak secrets, naming the field', async () => {
      const tenantId = tenant();
      await expect(
        harness.client.createWebhook({ tenantId, url: 'ftp://example.com/x', events: ['*'] }),
      ).rejects.toMatchObject({
        code: 'validation_error',
        details: [{ field: 'url', message: expect.stringContaining('http') }],
      });
      await expect(harness.client.createWebhook({ tenantId, url: 'not a url', events: ['*'] })).rejects.toMatchObject({
        details: [{ field: 'url' }],
      });
      await expect(
        harness.client.createWebhook({
          tenantId,
          url: harness.receiver.url(),
          events: ['agent.created', 'agent.mesage', 'workflow'],
        }),
      ).rejects.toMatchObject({ code: 'validation_error', details: [{ field: 'events[1]' }] });
      await expect(
        harness.client.createWebhook({ tenantId, url: harness.receiver.url(), events: [] }),
      ).rejects.toMatchObject({
        details: [{ field: 'events' }],
      });
      await expect(
        harness.client.createWebhook({ tenantId, url: harness.receiver.url(), events: ['*'], secret: 'short' }),
      ).rejects.toMatchObject({
        details: [{ field: 'secret' }],
      });
    });

    it('updates url, events and metadata, refuses setting status failed, and hides other tenants', async () => {
      const tenantId = tenant();
      const { webhook } = await createHook(tenantId, '/update', ['agent.created']);
      const updated = await harness.client.updateWebhook({
        tenantId,
        id: webhook!.id,
        url: harness.receiver.url('/update-2'),
        events: { events: ['agent', 'workflow.completed'] },
        metadata: { team: 'ops' },
      });
      expect(updated).toMatchObject({
        url: harness.receiver.url('/update-2'),
        events: ['agent', 'workflow.completed'],
        metadata: { team: 'ops' },
      });
      await expect(
        harness.client.updateWebhook({
          tenantId,
          id: webhook!.id,
          status: 'failed',
          events: undefined,
          metadata: undefined,
        }),
      ).rejects.toMatchObject({
        details: [{ field: 'status' }],
      });
      await expect(harness.client.getWebhook({ tenantId: tenant(), id: webhook!.id })).rejects.toMatchObject({
        code: 'not_found',
      });
      await expect(
        harness.client.listDeliveries({ tenantId: tenant(), webhookId: webhook!.id, limit: 5 }),
      ).rejects.toMatchObject({
        code: 'not_found',
      });
    });

    it('deletes a webhook with its delivery log', async () => {
      const tenantId = tenant();
      const { webhook } = await createHook(tenantId, '/delete', ['*']);
      await harness.client.testWebhook({ tenantId, id: webhook!.id, eventType: 'agent.created' });
      expect(await harness.client.deleteWebhook({ tenantId, id: webhook!.id })).toEqual({ success: true });
      await expect(harness.client.getWebhook({ tenantId, id: webhook!.id })).rejects.toMatchObject({
        code: 'not_found',
      });
      await expect(harness.client.deleteWebhook({ tenantId, id: webhook!.id })).rejects.toMatchObject({
        code: 'not_found',
      });
    });
  });

  describe('test sends, rotation and redelivery', () => {
    it('sends a test event synchronously and logs it like any delivery, without retries', async () => {
      const tenantId = tenant();
      harness.receiver.on('/test-send', Receiver.sequence([200, 500]));
      const { webhook, signingSecret } = await createHook(tenantId, '/test-send', ['billing']);
      const ok = await harness.client.testWebhook({ tenantId, id: webhook!.id, eventType: 'agent.message.completed' });
      expect(ok).toMatchObject({ success: true, responseStatus: 200, deliveryId: expect.stringMatching(/^dlv_/) });
      expect(ok.responseTimeMs).toBeGreaterThanOrEqual(0);
      const [request] = harness.receiver.to('/test-send');
      expect(JSON.parse(request.body)).toMatchObject({
        type: 'agent.message.completed',
        tenant_id: tenantId,
        data: { tokens_used: 42 },
      });
      expect(verifyWebhookSignature(request.body, request.headers['x-service-signature'], signingSecret)).toBe(true);

      const failed = await harness.client.testWebhook({ tenantId, id: webhook!.id, eventType: 'agent.created' });
      expect(failed).toMatchObject({ success: false, responseStatus: 500 });
      await sleep(800);
      expect(harness.receiver.to('/test-send')).toHaveLength(2);
      const log = await harness.client.listDeliveries({ tenantId, webhookId: webhook!.id, limit: 10 });
      expect(log.items.map((d) => [d.id, d.status, d.attempts, d.test])).toEqual([
        [failed.deliveryId, 'failed', 1, true],
        [ok.deliveryId, 'delivered', 1, true],
      ]);
      expect((await harness.client.getWebhook({ tenantId, id: webhook!.id })).status).toBe('active');
      await expect(harness.client.testWebhook({ tenantId, id: webhook!.id, eventType: 'nope' })).rejects.toMatchObject({
        details: [{ field: 'event_type' }],
      });
    });

    it('signs with both the new and the old secret after a rotation', async () => {
      const tenantId = tenant();
      const { webhook, signingSecret: oldSecret } = await createHook(tenantId, '/rotate', ['*']);
      const rotated = await harness.client.rotateSecret({ tenantId, id: webhook!.id });
      expect(rotated.signingSecret).toMatch(/^whsec_/);
      expect(rotated.signingSecret).not.toBe(oldSecret);
      expect(new Date(rotated.previousSecretExpiresAt).getTime() - Date.now()).toBeGreaterThan(23 * 3600 * 1000);

      await harness.client.testWebhook({ tenantId, id: webhook!.id, eventType: 'agent.created' });
      const [request] = harness.receiver.to('/rotate');
      const header = request.headers['x-service-signature'];
      const [t, ...entries] = header.split(',');
      const timestamp = t.slice(2);
      expect(entries).toEqual([
        `v1=${expectedServiceSignature(rotated.signingSecret, timestamp, request.body)}`,
        `v1=${expectedServiceSignature(oldSecret, timestamp, request.body)}`,
      ]);
      expect(request.headers['webhook-signature'].split(' ')).toEqual([
        `v1,${expectedStandardSignature(rotated.signingSecret, request.headers['webhook-id'], timestamp, request.body)}`,
        `v1,${expectedStandardSignature(oldSecret, request.headers['webhook-id'], timestamp, request.body)}`,
      ]);
      expect(verifyWebhookSignature(request.body, header, oldSecret)).toBe(true);
      expect(verifyWebhookSignature(request.body, header, rotated.signingSecret)).toBe(true);
    });

    it('redelivers one delivery on request', async () => {
      const tenantId = tenant();
      const { webhook } = await createHook(tenantId, '/redeliver', ['agent.created']);
      const event = await harness.producer.emit('agent.created', tenantId, sampleData.agentCreated);
      await harness.receiver.waitForRequests(1, { path: '/redeliver' });
      const [delivery] = await deliveryStatus(tenantId, webhook!.id, 'delivered');

      const requeued = await harness.client.redeliver({ tenantId, webhookId: webhook!.id, deliveryId: delivery.id });
      expect(requeued).toMatchObject({ id: delivery.id, status: 'pending' });
      const requests = await harness.receiver.waitForRequests(2, { path: '/redeliver' });
      expect(eventIdsOf(requests)).toEqual([event.id, event.id]);
      expect(requests[1].headers['x-service-delivery-attempt']).toBe('2');
      const [after] = await deliveryStatus(tenantId, webhook!.id, 'delivered');
      expect(after.attempts).toBe(2);
      await expect(
        harness.client.redeliver({ tenantId, webhookId: webhook!.id, deliveryId: 'dlv_missing' }),
      ).rejects.toMatchObject({
        code: 'not_found',
      });
      await expect(
        harness.client.redeliver({ tenantId: tenant(), webhookId: webhook!.id, deliveryId: delivery.id }),
      ).rejects.toMatchObject({
        code: 'not_found',
      });
    });
  });
});
