import { createLogger } from '@agentplatform/service-kit';
import type { AttemptResult, Webhook } from '../domain/types';
import type { DeliveryRepository } from '../persistence/delivery.repository';
import type { WebhookRepository } from '../persistence/webhook.repository';
import type { DispatchJob } from './dispatch-job';
import { Dispatcher } from './dispatcher';
import type { HttpSender, SendRequest } from './http-sender';

const ok = (request: SendRequest): AttemptResult => ({
  number: request.number,
  attemptedAt: new Date(),
  durationMs: 1,
  responseStatus: 200,
  responseHeaders: {},
  success: true,
});

/** A dispatcher whose sender never answers URLs on `hang.example` and answers others at once. */
function dispatcher() {
  const sent: string[] = [];
  const released: string[] = [];
  const sender = {
    send: (request: SendRequest) => {
      sent.push(request.url);
      return request.url.includes('hang.example')
        ? new Promise<AttemptResult>(() => undefined)
        : Promise.resolve(ok(request));
    },
  } as unknown as HttpSender;
  const deliveries = {
    releaseMany: async (ids: readonly string[]) => void released.push(...ids),
    release: async (id: string) => void released.push(id),
    recordOutcomes: async (outcomes: readonly unknown[]) => outcomes.length,
  } as unknown as DeliveryRepository;
  const webhooks = { markFailed: async () => false } as unknown as WebhookRepository;
  const instance = new Dispatcher(
    { deliveries, webhooks, sender, logger: createLogger('test', 'silent'), ownsTenant: () => true },
    {
      schedule: [0, 1000],
      timeoutMs: 10_000,
      leaseMs: 60_000,
      pollIntervalMs: 1_000,
      concurrency: 256,
      tenantConcurrency: 16,
      hostConcurrency: 8,
    },
  );
  return { instance, sent, released };
}

function jobs(tenantId: string, host: string, count: number): DispatchJob[] {
  return Array.from({ length: count }, (_, i) => ({
    deliveryId: `${tenantId}-${i}`,
    tenantId,
    eventId: `evt-${i}`,
    eventType: 'agent.created',
    test: false,
    roundAttempts: 0,
    attempts: 0,
    leaseToken: 'lease',
    leaseUntil: Date.now() + 60_000,
    webhook: {
      id: `hook-${tenantId}`,
      tenantId,
      url: `http://${host}/in`,
      signingSecret: 'a-signing-secret-of-some-length',
      previousSecrets: [],
    } as unknown as Webhook,
    body: '{}',
  }));
}

describe('Dispatcher.admit', () => {
  it("queues a stuck tenant's share, hands the rest back after a short wait, and sends other tenants' at once", async () => {
    const { instance, sent, released } = dispatcher();
    const started = Date.now();
    // 60 jobs to two hosts that never answer: 16 run (8 a host), 32 wait, 12 go back to the database.
    const stuck = [...jobs('noisy', 'hang.example:1', 30), ...jobs('noisy', 'hang.example:2', 30)];
    await instance.admit([...stuck, ...jobs('quiet', 'fast.example', 5)]);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(sent.filter((url) => url.includes('fast.example'))).toHaveLength(5);
    expect(sent.filter((url) => url.includes('hang.example'))).toHaveLength(16);
    expect(released).toHaveLength(12);
    expect(instance.roomFor('noisy')).toBe(0);
    expect(instance.roomFor('quiet')).toBe(32);
  });

  it("keeps a healthy tenant's burst in memory: it waits for room instead of handing it back", async () => {
    const { instance, sent, released } = dispatcher();
    await instance.admit(jobs('busy', 'fast.example', 200));
    expect(released).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sent).toHaveLength(200);
  });
});
