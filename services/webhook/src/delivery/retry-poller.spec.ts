import { createLogger } from '@agentplatform/service-kit';
import type { Webhook } from '../domain/types';
import type { DeliveryRepository } from '../persistence/delivery.repository';
import type { DeliveryDocument } from '../persistence/delivery.schema';
import type { WebhookRepository } from '../persistence/webhook.repository';
import type { DispatchJob } from './dispatch-job';
import { RetryPoller } from './retry-poller';

/** Due deliveries per tenant, in memory: a fake of the repository's claiming port. */
function fakeDeliveries(due: Record<string, number>) {
  const claims: Array<[string, number]> = [];
  const repository = {
    async nextTenantWithDueWork(after: string) {
      return Object.keys(due)
        .filter((tenant) => due[tenant]! > 0 && tenant > after)
        .sort()[0];
    },
    async claimDue(_token: string, limit: number, leaseMs: number, now: Date, tenantId: string) {
      const count = Math.min(limit, due[tenantId] ?? 0);
      due[tenantId] = (due[tenantId] ?? 0) - count;
      claims.push([tenantId, count]);
      return Array.from(
        { length: count },
        (_, i) =>
          ({
            _id: `${tenantId}-${i}`,
            tenant_id: tenantId,
            webhook_id: `hook-${tenantId}`,
            event_id: `evt-${i}`,
            event_type: 'agent.created',
            body: '{}',
            test: false,
            lease_until: new Date(now.getTime() + leaseMs),
          }) as DeliveryDocument,
      );
    },
    failUnsent: async () => undefined,
  };
  return { repository: repository as unknown as DeliveryRepository, claims };
}

const webhooks = {
  async findMany(refs: Array<{ tenantId: string; id: string }>) {
    return new Map(refs.map((r) => [r.id, { id: r.id, tenantId: r.tenantId, status: 'active' } as Webhook]));
  },
} as unknown as WebhookRepository;

function poller(
  deliveries: DeliveryRepository,
  room: (tenant: string) => number,
  owns: (tenant: string) => boolean = () => true,
) {
  const queued: DispatchJob[] = [];
  const backlogged = new Set<string>();
  const retryPoller = new RetryPoller(
    {
      deliveries,
      webhooks,
      logger: createLogger('test', 'silent'),
      ownsTenant: owns,
      sink: {
        roomFor: room,
        noteBacklog: (tenant) => backlogged.add(tenant),
        waitForRoom: async () => undefined,
        enqueue: (jobs) => queued.push(...jobs),
      },
    },
    { leaseMs: 60_000, pollIntervalMs: 1_000, claimBatch: 10 },
  );
  return { retryPoller, queued, backlogged };
}

describe('RetryPoller', () => {
  it('claims each tenant only as much as its queue has room for, so a backlog cannot take the poll', async () => {
    const { repository, claims } = fakeDeliveries({ noisy: 1_000, quiet: 3 });
    const { retryPoller, queued, backlogged } = poller(repository, (tenant) => (tenant === 'noisy' ? 4 : 32));
    await retryPoller.pollOnce();
    expect(claims).toEqual([
      ['noisy', 4],
      ['quiet', 3],
    ]);
    expect(queued).toHaveLength(7);
    // The noisy tenant has more: the dispatcher wakes the poller once its queue has room again.
    expect([...backlogged]).toEqual(['noisy']);
  });

  it('skips a tenant whose queue is full and starts each poll after the tenant served last', async () => {
    const { repository, claims } = fakeDeliveries({ a: 100, b: 100, c: 100 });
    const { retryPoller } = poller(repository, (tenant) => (tenant === 'b' ? 0 : 5));
    await retryPoller.pollOnce();
    await retryPoller.pollOnce();
    // A budget of 10 a poll: a and c (b is full); the next poll starts after c, which wraps to a.
    expect(claims).toEqual([
      ['a', 5],
      ['c', 5],
      ['a', 5],
      ['c', 5],
    ]);
  });

  it('rotates the first tenant of a poll when the budget runs out', async () => {
    const { repository, claims } = fakeDeliveries({ a: 100, b: 100, c: 100 });
    const { retryPoller } = poller(repository, () => 10);
    await retryPoller.pollOnce();
    await retryPoller.pollOnce();
    await retryPoller.pollOnce();
    expect(claims.map(([tenant]) => tenant)).toEqual(['a', 'b', 'c']);
  });

  it('claims only for the tenants whose partition this replica consumes', async () => {
    const { repository, claims } = fakeDeliveries({ mine: 2, theirs: 2 });
    const { retryPoller } = poller(
      repository,
      () => 10,
      (tenant) => tenant === 'mine',
    );
    await retryPoller.pollOnce();
    expect(claims).toEqual([['mine', 2]]);
  });
});
