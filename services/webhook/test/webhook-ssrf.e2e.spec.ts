import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { suiteFixture, waitFor } from '@agentplatform/testing';
import { sampleData, tenant, startWebhookHarness } from './support';

/** A webhook service as deployed: private destinations refused (the harness allows them by default). */
describe('webhook SSRF guard', () => {
  const harness = suiteFixture(() =>
    startWebhookHarness({
      services: ['webhook'],
      serviceEnv: { webhook: { ALLOW_PRIVATE_URLS: 'false', WEBHOOK_RETRY_SCHEDULE_MS: '0,100,100,100,100' } },
    }),
  );

  it.each([
    ['loopback', 'http://127.0.0.1:8080/hook'],
    ['loopback in decimal notation', 'http://2130706433/hook'],
    ['IPv6 loopback', 'http://[::1]/hook'],
    ['IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]/hook'],
    ['private 10/8', 'http://10.1.2.3/hook'],
    ['private 172.16/12', 'https://172.20.0.5/hook'],
    ['private 192.168/16', 'http://192.168.1.10/hook'],
    ['link-local', 'http://169.254.10.10/hook'],
    ['cloud metadata', 'http://169.254.169.254/latest/meta-data/'],
    ['IPv6 link-local', 'http://[fe80::1]/hook'],
    ['IPv6 unique local (AWS metadata)', 'http://[fd00:ec2::254]/'],
    ['metadata host name', 'http://metadata.google.internal/computeMetadata/v1/'],
    ['localhost', 'http://localhost:3000/hook'],
  ])('refuses a %s URL when the webhook is created', async (_name, url) => {
    await expect(harness.client.createWebhook({ tenantId: tenant(), url, events: ['*'] })).rejects.toMatchObject({
      code: 'validation_error',
      details: [{ field: 'url', message: expect.stringContaining('private') }],
    });
  });

  it('accepts a public URL', async () => {
    const { webhook } = await harness.client.createWebhook({
      tenantId: tenant(),
      url: 'https://hooks.example.com/in',
      events: ['*'],
    });
    expect(webhook!.status).toBe('active');
  });

  it('refuses at connect time a host name that resolves to a private address', async () => {
    // The machine's own name resolves to a loopback or private address and passes the URL check.
    const host = hostname();
    const resolved = await lookup(host);
    const tenantId = tenant();
    const { webhook } = await harness.client.createWebhook({
      tenantId,
      url: `http://${host}:${harness.receiver.port}/ssrf`,
      events: ['*'],
    });

    const test = await harness.client.testWebhook({ tenantId, id: webhook!.id, eventType: 'agent.created' });
    expect(test.success).toBe(false);
    expect(test.responseStatus).toBeUndefined();
    // The refusal names the host the customer gave, never the internal address it resolved to.
    expect(test.error).toBe(`refused: the destination ${host} is not allowed`);
    expect(test.error).not.toContain(resolved.address);

    await harness.producer.emit('agent.created', tenantId, sampleData.agentCreated);
    const delivery = await waitFor(
      async () => {
        const { items } = await harness.client.listDeliveries({ tenantId, webhookId: webhook!.id, limit: 10 });
        return items.find((d) => !d.test && d.status === 'failed');
      },
      { what: 'the refused delivery to fail' },
    );
    expect(delivery.attempts).toBe(5);
    expect(delivery.lastError).toMatch(/^refused: /);
    expect(harness.receiver.to('/ssrf')).toHaveLength(0);
  });
});
