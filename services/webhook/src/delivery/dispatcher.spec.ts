import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '@agentplatform/service-kit';
import type { AttemptResult, Webhook } from '../domain/types';
import type { DeliveryRepository } from '../persistence/delivery.repository';
import type { WebhookRepository } from '../persistence/webhook.repository';
import type { DispatchJob } from './dispatch-job';
import { Dispatcher } from './dispatcher';
import type { SendRequest } from './http-sender';

const ok = (request: SendRequest): AttemptResult => ({
  number: request.number,
  attemptedAt: new Date(),
  durationMs: 1,
  responseStatus: 200,
  responseHeaders: {},
  success: true,
});

/**
 * A dispatcher whose sender never answers URLs on `hang.example`, answers URLs on `slow.example`
 * after `answerMs` and others at once, and whose outcome writes take `recordMs`. It counts the
 * requests open to each host at once.
 */
function dispatcher({ answerMs = 5, recordMs = 0 } = {}) {
  const sent: string[] = [];
  const released: string[] = [];
  const open = new Map<string, number>();
  const maxOpen = new Map<string, number>();
  const sender = {
    send: async (request: SendRequest): Promise<AttemptResult> => {
      sent.push(request.url);
      const host = new URL(request.url).host;
      open.set(host, (open.get(host) ?? 0) + 1);
      maxOpen.set(host, Math.max(maxOpen.get(host) ?? 0, open.get(host)!));
      if (request.url.includes('hang.example')) return new Promise<AttemptResult>(() => undefined);
      if (request.url.includes('slow.example')) await sleep(answerMs);
      open.set(host, open.get(host)! - 1);
      return ok(request);
    },
  };
  const deliveries = {
    releaseMany: async (ids: readonly string[]) => void released.push(...ids),
    recordOutcomes: async (outcomes: readonly unknown[]) => {
      if (recordMs > 0) await sleep(recordMs);
      return outcomes.length;
    },
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
  return { instance, sent, released, maxOpen };
}

function jobs(tenantId: string, host: string, count: number): DispatchJob[] {
  return Array.from({ length: count }, (_, i) => ({
    deliveryId: `${tenantId}-${host}-${i}`,
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

describe('Dispatcher', () => {
  it("queues a stuck tenant's backlog up to its bound, hands the rest back, and sends other tenants' at once", async () => {
    const { instance, sent, released, maxOpen } = dispatcher();
    const started = Date.now();
    // 300 jobs to two hosts that never answer: 16 run (8 a host), 256 wait, 28 go back to the database.
    const stuck = [...jobs('noisy', 'hang.example:1', 150), ...jobs('noisy', 'hang.example:2', 150)];
    await instance.admission.admit([...stuck, ...jobs('quiet', 'fast.example', 5)]);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(sent.filter((url) => url.includes('fast.example'))).toHaveLength(5);
    expect(sent.filter((url) => url.includes('hang.example'))).toHaveLength(16);
    expect(maxOpen.get('hang.example:1')).toBe(8);
    expect(released).toHaveLength(28);
    expect(instance.admission.roomFor('noisy')).toBe(0);
    expect(instance.admission.roomFor('quiet')).toBe(256);
  });

  it("keeps a healthy tenant's burst in memory: it waits for room instead of handing it back", async () => {
    const { instance, sent, released } = dispatcher();
    // More than its queue holds (256): the rest waits for room while its jobs end.
    await instance.admission.admit(jobs('busy', 'fast.example', 320));
    expect(released).toEqual([]);
    await waitUntil(() => sent.length === 320);
  });

  it('lets a fast destination of many tenants take more than the base share, never a hanging one', async () => {
    const { instance, sent, maxOpen } = dispatcher({ answerMs: 5 });
    const tenants = ['a', 'b', 'c', 'd'];
    await instance.admission.admit([
      ...tenants.flatMap((tenant) => jobs(tenant, 'slow.example:1', 200)),
      ...jobs('e', 'hang.example:1', 40),
    ]);
    await waitUntil(() => sent.filter((url) => url.includes('slow.example')).length === 800);
    // Four tenants of 16 each: the fast destination earned more than its base 8, up to 64.
    expect(maxOpen.get('slow.example:1')).toBeGreaterThan(16);
    expect(maxOpen.get('slow.example:1')).toBeLessThanOrEqual(64);
    expect(maxOpen.get('hang.example:1')).toBe(8);
  });

  it("frees a tenant's request slots when answers come, while outcomes are still being stored", async () => {
    const { instance, sent } = dispatcher({ recordMs: 300 });
    await instance.admission.admit(jobs('t', 'fast.example', 100));
    await sleep(100);
    // The first write has not ended yet, but the tenant was not held to 16 requests.
    expect(sent.length).toBeGreaterThan(16);
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}
