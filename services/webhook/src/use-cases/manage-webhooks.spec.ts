import { createEvent, type ReceivedEnvelope } from '@agentplatform/events/catalogue';
import { inMemoryWebhookDeps } from '../testing/in-memory.js';
import { createWebhook } from './create-webhook.js';
import { deleteWebhook } from './delete-webhook.js';
import { getDelivery } from './get-delivery.js';
import { listDeliveries } from './list-deliveries.js';
import { listWebhooks } from './list-webhooks.js';
import { recover } from './recover.js';
import { redeliver } from './redeliver.js';
import { rotateSecret } from './rotate-secret.js';
import { testWebhook } from './test-webhook.js';
import { updateWebhook } from './update-webhook.js';

const url = 'https://hooks.example.com/in';

function setup() {
  const { deps, fakes } = inMemoryWebhookDeps();
  const create = (tenantId = 't1', extra: { secret?: string; plan?: string; events?: string[] } = {}) =>
    createWebhook(deps, { tenantId, url, events: ['agent'], ...extra });
  return { deps, fakes, create };
}

const fieldsOf = (error: { details: Array<{ field: string }> }) => error.details.map((d) => d.field);

describe('webhook use cases against in-memory repositories', () => {
  it('creates an active webhook with a generated whsec_ secret, visible to its tenant only', async () => {
    const { deps, create } = setup();
    const { webhook, signingSecret } = await create();
    expect(webhook).toMatchObject({ tenantId: 't1', url, status: 'active', metadata: {} });
    expect(signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await expect(listWebhooks(deps, { tenantId: 't1' })).resolves.toMatchObject({ total: 1, page: 1, perPage: 20 });
    await expect(listWebhooks(deps, { tenantId: 't2' })).resolves.toMatchObject({ total: 0, items: [] });
  });

  it('names every bad field: private URL, unknown event, short secret, large metadata', async () => {
    const { deps } = setup();
    const error = await createWebhook(deps, {
      tenantId: 't1',
      url: 'http://169.254.169.254/latest',
      events: ['no.such.event'],
      secret: 'short',
      metadata: { blob: 'x'.repeat(9_000) },
    }).catch((e) => e);
    expect(error.code).toBe('validation_error');
    expect(fieldsOf(error)).toEqual(expect.arrayContaining(['url', 'secret', 'metadata']));
    expect(fieldsOf(error).some((f: string) => f.startsWith('events'))).toBe(true);
  });

  it('stops at the plan quota; a delete makes room again', async () => {
    const { deps, create } = setup();
    const made = [];
    for (let i = 0; i < 10; i++) made.push((await create()).webhook);
    await expect(create()).rejects.toMatchObject({ code: 'quota_exceeded' });
    await expect(create('t2')).resolves.toBeDefined();
    await deleteWebhook(deps, { tenantId: 't1', id: made[0].id });
    await expect(create()).resolves.toBeDefined();
  });

  it("updates, re-enables and disables; refuses a status it cannot set and another tenant's id", async () => {
    const { deps, fakes, create } = setup();
    const { webhook } = await create();
    fakes.webhooks.byId.set(webhook.id, { ...webhook, status: 'failed', failureReason: '410 Gone' });
    const enabled = await updateWebhook(deps, { tenantId: 't1', id: webhook.id, status: 'active' });
    expect(enabled).toMatchObject({ status: 'active', url });
    expect(enabled.failureReason).toBeUndefined();
    await expect(updateWebhook(deps, { tenantId: 't1', id: webhook.id, status: 'failed' })).rejects.toMatchObject({
      details: [expect.objectContaining({ field: 'status' })],
    });
    await expect(updateWebhook(deps, { tenantId: 't2', id: webhook.id, status: 'disabled' })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('rotates the secret keeping the old one for the grace period, at most three old ones', async () => {
    const { deps, fakes, create } = setup();
    const { webhook, signingSecret } = await create();
    const rotated = await rotateSecret(deps, { tenantId: 't1', id: webhook.id });
    expect(rotated.signingSecret).not.toBe(signingSecret);
    expect(fakes.webhooks.byId.get(webhook.id)!.previousSecrets.map((p) => p.secret)).toEqual([signingSecret]);
    for (let i = 0; i < 4; i++) await rotateSecret(deps, { tenantId: 't1', id: webhook.id });
    expect(fakes.webhooks.byId.get(webhook.id)!.previousSecrets).toHaveLength(3);
    await expect(rotateSecret(deps, { tenantId: 't1', id: webhook.id, secret: 'short' })).rejects.toMatchObject({
      details: [expect.objectContaining({ field: 'secret' })],
    });
    await expect(rotateSecret(deps, { tenantId: 't2', id: webhook.id })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('sends a test event, logs it as a test delivery, and refuses an unknown event type', async () => {
    const { deps, fakes, create } = setup();
    const { webhook } = await create();
    const sent = await testWebhook(deps, { tenantId: 't1', id: webhook.id, eventType: 'agent.created' });
    expect(sent).toMatchObject({ success: true, responseStatus: 204 });
    expect(fakes.dispatcher.sent).toHaveLength(1);
    await expect(
      getDelivery(deps, { tenantId: 't1', webhookId: webhook.id, deliveryId: sent.deliveryId }),
    ).resolves.toMatchObject({ test: true, eventType: 'agent.created' });
    await expect(testWebhook(deps, { tenantId: 't1', id: webhook.id, eventType: 'nope' })).rejects.toMatchObject({
      details: [expect.objectContaining({ field: 'event_type' })],
    });
    await expect(
      testWebhook(deps, { tenantId: 't2', id: webhook.id, eventType: 'agent.created' }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it("lists deliveries by status, and hides another tenant's webhook and deliveries", async () => {
    const { deps, create } = setup();
    const { webhook } = await create();
    const sent = await testWebhook(deps, { tenantId: 't1', id: webhook.id, eventType: 'agent.created' });
    const ids = { webhookId: webhook.id, deliveryId: sent.deliveryId };
    await expect(
      listDeliveries(deps, { tenantId: 't1', webhookId: webhook.id, status: 'pending' }),
    ).resolves.toHaveLength(1);
    await expect(listDeliveries(deps, { tenantId: 't1', webhookId: webhook.id, status: 'lost' })).rejects.toMatchObject(
      { details: [expect.objectContaining({ field: 'status' })] },
    );
    await expect(listDeliveries(deps, { tenantId: 't2', webhookId: webhook.id })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(getDelivery(deps, { tenantId: 't2', ...ids })).rejects.toMatchObject({ code: 'not_found' });
    await expect(getDelivery(deps, { tenantId: 't1', ...ids, deliveryId: 'dlv_x' })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('redelivers a finished delivery once; a pending one and an inactive webhook are conflicts', async () => {
    const { deps, fakes, create } = setup();
    const { webhook } = await create();
    const sent = await testWebhook(deps, { tenantId: 't1', id: webhook.id, eventType: 'agent.created' });
    const input = { tenantId: 't1', webhookId: webhook.id, deliveryId: sent.deliveryId };
    await expect(redeliver(deps, input)).rejects.toMatchObject({ code: 'conflict' });
    const stored = fakes.deliveries.byId.get(sent.deliveryId)!;
    fakes.deliveries.byId.set(sent.deliveryId, { ...stored, status: 'failed' });
    await expect(redeliver(deps, input)).resolves.toMatchObject({ status: 'pending', roundAttempts: 0 });
    expect(fakes.dispatcher.nudges).toBe(1);
    await updateWebhook(deps, { tenantId: 't1', id: webhook.id, status: 'disabled' });
    await expect(redeliver(deps, input)).rejects.toMatchObject({ code: 'conflict' });
    await expect(redeliver(deps, { ...input, tenantId: 't2' })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('recovers missed matching events once, never from before the webhook, never from the future', async () => {
    const { deps, fakes, create } = setup();
    const { webhook } = await create();
    const receive = (type: 'agent.created' | 'memory.consolidated', tenantId = 't1', at = new Date()) => {
      const envelope = createEvent(type, tenantId, {} as never) as unknown as ReceivedEnvelope;
      fakes.events.received.push({ tenantId, at, envelope });
    };
    receive('agent.created', 't1', new Date(webhook.createdAt.getTime() - 60_000));
    receive('agent.created');
    receive('memory.consolidated');
    receive('agent.created', 't2');
    const since = new Date(Date.now() - 3_600_000).toISOString();
    await expect(recover(deps, { tenantId: 't1', webhookId: webhook.id, since })).resolves.toEqual({
      redelivered: 0,
      missed: 1,
    });
    await expect(recover(deps, { tenantId: 't1', webhookId: webhook.id, since })).resolves.toEqual({
      redelivered: 0,
      missed: 0,
    });
    const future = new Date(Date.now() + 60_000).toISOString();
    await expect(recover(deps, { tenantId: 't1', webhookId: webhook.id, since: future })).rejects.toMatchObject({
      details: [expect.objectContaining({ field: 'since' })],
    });
    await expect(recover(deps, { tenantId: 't1', webhookId: webhook.id, since: 'yesterday' })).rejects.toMatchObject({
      details: [expect.objectContaining({ field: 'since' })],
    });
    await expect(recover(deps, { tenantId: 't2', webhookId: webhook.id, since })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('deletes a webhook with its deliveries; a second delete is 404', async () => {
    const { deps, fakes, create } = setup();
    const { webhook } = await create();
    await testWebhook(deps, { tenantId: 't1', id: webhook.id, eventType: 'agent.created' });
    await expect(deleteWebhook(deps, { tenantId: 't2', id: webhook.id })).rejects.toMatchObject({ code: 'not_found' });
    await deleteWebhook(deps, { tenantId: 't1', id: webhook.id });
    expect(fakes.deliveries.byId.size).toBe(0);
    await expect(deleteWebhook(deps, { tenantId: 't1', id: webhook.id })).rejects.toMatchObject({ code: 'not_found' });
  });
});
