import { suiteFixture, waitFor } from '@agentplatform/testing';
import { startWebhookHarness, type WebhookClient, type WebhookHarness } from './support';

/** Short retry schedule: five attempts within about two seconds. */
export const SCHEDULE = [0, 200, 400, 600, 800];
/** Time for an answer; short so a hanging endpoint is tested quickly. */
export const TIMEOUT_MS = 1_500;

type Deliveries = Awaited<ReturnType<WebhookClient['listDeliveries']>>['items'];

export interface DeliverySuite {
  harness: WebhookHarness;
  /** A webhook of the tenant to the receiver's `path`, with the path in its metadata. */
  createHook(
    tenantId: string,
    path: string,
    events: string[],
    secret?: string,
  ): ReturnType<WebhookClient['createWebhook']>;
  /** The webhook's deliveries once every one of them has `status`. */
  deliveryStatus(tenantId: string, webhookId: string, status: string): Promise<Deliveries>;
}

/**
 * The webhook service as a real process consuming the platform's Kafka topic, fed by a real
 * outbox relay, delivering to a real HTTP receiver, with the short schedule and timeout above.
 * Called in a describe: the platform starts before its tests and stops after them.
 */
export function deliverySuite(): DeliverySuite {
  const harness = suiteFixture(() =>
    startWebhookHarness({
      services: ['webhook'],
      serviceEnv: {
        webhook: {
          WEBHOOK_RETRY_SCHEDULE_MS: SCHEDULE.join(','),
          WEBHOOK_POLL_INTERVAL_MS: '100',
          WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
        },
      },
    }),
  );

  async function createHook(tenantId: string, path: string, events: string[], secret?: string) {
    return harness.client.createWebhook({
      tenantId,
      url: harness.receiver.url(path),
      events,
      secret,
      metadata: { path },
    });
  }

  async function deliveryStatus(tenantId: string, webhookId: string, status: string) {
    return waitFor(
      async () => {
        const { items } = await harness.client.listDeliveries({ tenantId, webhookId, limit: 10 });
        return items.length > 0 && items.every((d) => d.status === status) ? items : undefined;
      },
      { what: `deliveries ${status}` },
    );
  }

  return { harness, createHook, deliveryStatus };
}
