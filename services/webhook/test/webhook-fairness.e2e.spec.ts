import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEvent, createKafka, EVENT_HEADERS, type EventEnvelope } from '@agentplatform/events';
import { suiteFixture, waitFor } from '@agentplatform/testing';
import { eventIdsOf, logger, sampleData, sleep, tenant, startWebhookHarness } from './support';

/** A delivery times out after this long; the hanging endpoints never answer at all. */
const TIMEOUT_MS = 2_000;
const TENANT_SHARE = 16;
const HOST_SHARE = 8;

/**
 * How long after the dispatcher gave up on a request (its timeout frees the slot at once) the
 * endpoint may still see that request's socket open: the close travels through both processes'
 * event loops, late on a loaded machine. A request is counted as open until this long before its
 * close was seen. The requests hang for whole seconds, so a real excess is never hidden by it.
 */
const CLOSE_SEEN_LATE_MS = 250;

/**
 * An endpoint that accepts requests and never answers, recording when each request arrived and
 * when its socket closed, so the test sees how many requests a tenant had in flight at once
 * across its destinations.
 */
class HangingEndpoint {
  static open = 0;
  open = 0;
  received = 0;
  /** Each request's arrival and close (Infinity while open), from performance.now(). */
  private readonly spans: Array<{ from: number; to: number }> = [];

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(): Promise<HangingEndpoint> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const endpoint = new HangingEndpoint(server, (server.address() as AddressInfo).port);
    server.on('request', (req) => {
      const span = { from: performance.now(), to: Infinity };
      endpoint.spans.push(span);
      endpoint.received += 1;
      endpoint.open += 1;
      HangingEndpoint.open += 1;
      req.socket.once('close', () => {
        span.to = performance.now();
        endpoint.open -= 1;
        HangingEndpoint.open -= 1;
      });
    });
    return endpoint;
  }

  /** The most requests the endpoints held at once (see CLOSE_SEEN_LATE_MS). */
  static maxOpen(endpoints: readonly HangingEndpoint[]): number {
    const changes = endpoints
      .flatMap((endpoint) => endpoint.spans)
      .filter((span) => span.to - CLOSE_SEEN_LATE_MS > span.from)
      .flatMap((span): Array<[number, number]> => [
        [span.from, 1],
        [span.to - CLOSE_SEEN_LATE_MS, -1],
      ])
      // At the same instant a close counts before an arrival.
      .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let open = 0;
    let most = 0;
    for (const [, change] of changes) {
      open += change;
      most = Math.max(most, open);
    }
    return most;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * Fair delivery (DESIGN section 8) and unknown event types, against the real webhook service
 * consuming the real Kafka topic, with the default shares (16 per tenant, 8 per destination).
 */
describe('fair webhook delivery', () => {
  const harness = suiteFixture(() =>
    startWebhookHarness({
      services: ['webhook'],
      serviceEnv: {
        webhook: {
          // Five attempts, retried quickly: the noisy tenant's retries compete with its new work.
          WEBHOOK_RETRY_SCHEDULE_MS: '0,500,500,500,500',
          WEBHOOK_POLL_INTERVAL_MS: '100',
          WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
        },
      },
    }),
  );

  it('delivers an event type it does not know to the subscriptions that match it', async () => {
    const tenantId = tenant();
    const everything = await harness.client.createWebhook({
      tenantId,
      url: harness.receiver.url('/unknown-all'),
      events: ['*'],
    });
    const agents = await harness.client.createWebhook({
      tenantId,
      url: harness.receiver.url('/unknown-agent'),
      events: ['agent'],
    });
    await harness.client.createWebhook({
      tenantId,
      url: harness.receiver.url('/unknown-workflow'),
      events: ['workflow'],
    });
    // Published as a newer service would: the envelope format, a type this build does not know.
    const invented = {
      ...createEvent('agent.created', tenantId, sampleData.agentCreated),
      type: 'agent.tool.invented',
      data: { tool: 'search', result: 'ok' },
    } as unknown as EventEnvelope;
    const kafka = createKafka({ brokers: harness.platform.kafkaBrokers, clientId: 'webhook-test-unknown', logger });
    const direct = kafka.producer();
    await direct.connect();
    try {
      await direct.send({
        topic: harness.platform.topic,
        messages: [
          {
            key: tenantId,
            value: JSON.stringify(invented),
            headers: { [EVENT_HEADERS.type]: invented.type, [EVENT_HEADERS.id]: invented.id },
          },
        ],
      });
    } finally {
      await direct.disconnect();
    }
    const [request] = await harness.receiver.waitForRequests(1, { path: '/unknown-all' });
    expect(JSON.parse(request.body)).toEqual(invented);
    expect(request.headers['x-service-event-type']).toBe('agent.tool.invented');
    await harness.receiver.waitForRequests(1, { path: '/unknown-agent' });
    // A later event of the tenant marks the point by which the workflow subscription would have had it.
    const marker = await harness.producer.emit('workflow.execution.started', tenantId, sampleData.executionStarted);
    await waitFor(() => eventIdsOf(harness.receiver.to('/unknown-workflow')).includes(marker.id), {
      what: 'marker delivered',
    });
    expect(eventIdsOf(harness.receiver.to('/unknown-workflow'))).toEqual([marker.id]);
    const { items } = await harness.client.listDeliveries({ tenantId, webhookId: everything.webhook!.id, limit: 10 });
    expect(items.find((d) => d.eventId === invented.id)).toMatchObject({
      eventType: 'agent.tool.invented',
      status: 'delivered',
    });
    const log = await harness.client.listDeliveries({ tenantId, webhookId: agents.webhook!.id, limit: 10 });
    expect(log.items).toHaveLength(1);
  });

  /** Sends `count` events of the quiet tenant, 100 ms apart; answers each one's event -> received time. */
  async function quietLatencies(tenantId: string, count: number): Promise<number[]> {
    const sent: EventEnvelope[] = [];
    for (let i = 0; i < count; i += 1) {
      sent.push(await harness.producer.emit('agent.created', tenantId, sampleData.agentCreated));
      await sleep(100);
    }
    const ids = new Set(sent.map((e) => e.id));
    const arrived = await waitFor(
      () => {
        const seen = harness.receiver.to('/quiet').filter((r) => ids.has((JSON.parse(r.body) as { id: string }).id));
        return seen.length >= count ? seen : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 20, what: `${count} quiet deliveries` },
    );
    const receivedAt = new Map(arrived.map((r) => [(JSON.parse(r.body) as { id: string }).id, r.receivedAt]));
    return sent.map((e) => receivedAt.get(e.id)! - Date.parse(e.created_at));
  }

  it("keeps a quiet tenant's deliveries fast while a noisy tenant's endpoints hang", async () => {
    const hanging = [await HangingEndpoint.start(), await HangingEndpoint.start()];
    try {
      // The noisy tenant: 20 webhooks on two endpoints that never answer, 30 events: 600 deliveries.
      const noisy = tenant();
      const noisyHooks = [];
      for (let i = 0; i < 20; i += 1) {
        const { webhook } = await harness.client.createWebhook({
          tenantId: noisy,
          url: hanging[i % 2]!.url(`/noisy-${i}`),
          events: ['*'],
          // Over the free plan's 10 webhooks: the noisy tenant is a big one.
          plan: 'starter',
        });
        noisyHooks.push(webhook!);
      }
      const quiet = tenant();
      const { webhook: quietHook } = await harness.client.createWebhook({
        tenantId: quiet,
        url: harness.receiver.url('/quiet'),
        events: ['agent.created'],
      });
      // The quiet tenant on its own first, on this machine at this moment.
      const alone = await quietLatencies(quiet, 20);

      const noisyEvents = Array.from({ length: 30 }, () =>
        createEvent('agent.message.created', noisy, sampleData.messageCreated),
      );
      await harness.producer.emitMany(noisyEvents);
      // The noisy tenant's share is full before the quiet tenant's first event.
      await waitFor(() => HangingEndpoint.open >= TENANT_SHARE || undefined, {
        timeoutMs: 30_000,
        what: "the noisy tenant's share in use",
      });

      const latencies = await quietLatencies(quiet, 40);
      const p95 = percentile(latencies, 95);
      const aloneP95 = percentile(alone, 95);
      // Printed for the record: the figures vary with the machine's load.
      console.log(
        `quiet tenant event -> received: alone p95 ${aloneP95} ms; with the noisy tenant p50 ${percentile(latencies, 50)} ms, p95 ${p95} ms, max ${Math.max(...latencies)} ms`,
      );
      // The bound is 1.5 s; only on a machine so loaded that the quiet tenant alone is already slow
      // is it its own p95 plus 1 s, still far below what waiting behind the noisy tenant costs
      // (whole rounds of 2 s timeouts).
      expect(p95).toBeLessThan(Math.max(1_500, aloneP95 + 1_000));

      // The noisy tenant never held more than its shares, and it was still busy all along.
      expect(HangingEndpoint.maxOpen(hanging)).toBeLessThanOrEqual(TENANT_SHARE);
      for (const endpoint of hanging) expect(HangingEndpoint.maxOpen([endpoint])).toBeLessThanOrEqual(HOST_SHARE);
      expect(HangingEndpoint.open).toBeGreaterThan(0);
      // Nothing was dropped to make room: every noisy delivery exists, and none is lost or sent unasked.
      const { items } = await harness.client.listDeliveries({
        tenantId: noisy,
        webhookId: noisyHooks[0]!.id,
        limit: 100,
      });
      expect(items.map((d) => d.eventId).sort()).toEqual(noisyEvents.map((e) => e.id).sort());
      expect(items.every((d) => d.status === 'pending' || d.status === 'failed')).toBe(true);
      const { items: quietItems } = await harness.client.listDeliveries({
        tenantId: quiet,
        webhookId: quietHook!.id,
        limit: 100,
      });
      expect(quietItems.filter((d) => d.status === 'delivered')).toHaveLength(alone.length + latencies.length);
    } finally {
      await Promise.all(hanging.map((endpoint) => endpoint.close()));
    }
  });
});
