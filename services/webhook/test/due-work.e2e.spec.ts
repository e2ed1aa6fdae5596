import { randomBytes } from 'node:crypto';
import mongoose, { type Connection } from 'mongoose';
import {
  buildIndexes,
  createLogger,
  declaredIndexes,
  recordQueryShapes,
  servingIndex,
} from '@agentplatform/service-kit';
import { suiteFixture } from '@agentplatform/testing';
import type { Webhook } from '../src/domain/types';
import type { DispatchJob } from '../src/delivery/dispatch-job';
import { RetryPoller } from '../src/delivery/retry-poller';
import { DeliveryRepository, type NewDelivery } from '../src/persistence/delivery.repository';
import { EventRepository } from '../src/persistence/event.repository';
import type { WebhookRepository } from '../src/persistence/webhook.repository';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** The webhook service's delivery store on a database of its own on the real stand-in. */
async function startStore() {
  const dbName = `webhook_due_${randomBytes(4).toString('hex')}`;
  const open = async () => {
    const connection = await mongoose.createConnection(process.env.MONGODB_URI!, { dbName }).asPromise();
    const deliveries = new DeliveryRepository(connection);
    const events = new EventRepository(connection);
    await buildIndexes(connection);
    return { connection, deliveries, events };
  };
  const first = await open();
  const second = await open();
  return {
    ...first,
    /** A second replica's repository on its own connection. */
    other: second.deliveries,
    async stop() {
      await first.connection.dropDatabase();
      await Promise.all([first.connection.close(), second.connection.close()]);
    },
  };
}

/** Active webhooks for every delivery: the poller's other port. */
const webhooks = {
  async findMany(refs: Array<{ tenantId: string; id: string }>) {
    return new Map(refs.map((r) => [r.id, { id: r.id, tenantId: r.tenantId, status: 'active' } as Webhook]));
  },
} as unknown as WebhookRepository;

function poller(deliveries: DeliveryRepository, roomPerTenant: number, claimBatch: number) {
  const queued: DispatchJob[] = [];
  const retryPoller = new RetryPoller(
    {
      deliveries,
      webhooks,
      logger: createLogger('test', 'silent'),
      ownsTenant: () => true,
      sink: {
        roomFor: () => roomPerTenant,
        noteBacklog: () => undefined,
        waitForRoom: async () => undefined,
        enqueue: (jobs) => queued.push(...jobs),
      },
    },
    { leaseMs: MINUTE, pollIntervalMs: 1_000, claimBatch },
  );
  return { retryPoller, queued };
}

function pending(id: string, tenantId: string, createdAt: Date, lease?: { token: string; until: Date }): NewDelivery {
  return {
    id,
    tenantId,
    webhookId: `hook_${tenantId}`,
    eventId: `evt_${id}`,
    eventType: 'agent.created',
    body: '{}',
    createdAt,
    ...(lease ? { leaseToken: lease.token, leaseUntil: lease.until } : {}),
  };
}

/** Finished deliveries written straight to the collection: the history a poll must not pay for. */
async function seedHistory(connection: Connection, count: number, createdAt: Date, prefix = 'old') {
  const docs = Array.from({ length: count }, (_, i) => ({
    _id: `${prefix}_${i}`,
    tenant_id: `t${i % 3}`,
    webhook_id: 'hook_history',
    event_id: `evt_${prefix}_${i}`,
    event_type: 'agent.created',
    status: 'delivered',
    test: false,
    body: '{}',
    attempts: 1,
    round_attempts: 1,
    attempt_log: [],
    next_attempt_at: null,
    lease_until: new Date(0),
    lease_token: `free:${prefix}_${i}`,
    created_at: createdAt,
    updated_at: createdAt,
  }));
  for (let i = 0; i < docs.length; i += 1_000)
    await connection.collection('deliveries').insertMany(docs.slice(i, i + 1_000) as never[]);
}

describe('due work: the retry poller and retention on the real MongoDB-compatible server', () => {
  const store = suiteFixture(() => startStore());

  it('takes a bounded page of due work by index, and every delivery read or write is an index lookup', async () => {
    const { connection, deliveries } = store;
    const now = Date.now();
    await seedHistory(connection, 3_000, new Date(now - DAY));
    await deliveries.insertNew(
      Array.from({ length: 25 }, (_, i) =>
        pending(`a_${String(i).padStart(2, '0')}`, 'ten_a', new Date(now - 60_000 + i)),
      ),
    );
    await deliveries.insertNew(Array.from({ length: 5 }, (_, i) => pending(`b_${i}`, 'ten_b', new Date(now - 30_000))));
    // Being sent by the replica that created them: not due until their lease runs out.
    const lease = { token: 'creator', until: new Date(now + MINUTE) };
    await deliveries.insertNew(Array.from({ length: 3 }, (_, i) => pending(`c_${i}`, 'ten_c', new Date(now), lease)));

    const seen = recordQueryShapes(connection);
    const { retryPoller, queued } = poller(deliveries, 10, 16);
    expect(await retryPoller.pollOnce()).toBe(15);
    connection.set('debug', false);

    // Ten of the noisy tenant's, the longest due first; all five of the other's; none leased.
    expect(queued.filter((j) => j.tenantId === 'ten_a').map((j) => j.deliveryId)).toEqual(
      Array.from({ length: 10 }, (_, i) => `a_${String(i).padStart(2, '0')}`),
    );
    expect(queued.filter((j) => j.tenantId === 'ten_b')).toHaveLength(5);
    expect(queued.some((j) => j.tenantId === 'ten_c')).toBe(false);
    // What the stand-in scans for the poll is the pending work, not the 3,000 deliveries of history.
    expect(await deliveries.due.countDocuments()).toBe(33);

    // Each call the poll made, with the index that answers it: on MongoDB every one has an index;
    // on the stand-in every call on `deliveries` is an index lookup, and only the small due
    // collection is scanned. A new call, or one that loses its index, fails here.
    const verdicts = seen.map(({ shape, filter }) => {
      const verdict = servingIndex(shape, filter, declaredIndexes(connection, shape.collection));
      return `${shape.collection}.${shape.command}(${[...shape.equality, ...shape.range].join(',')}) -> ${verdict.mongo}${verdict.standIn ? ' (stand-in: index)' : ''}`;
    });
    expect([...new Set(verdicts)].sort()).toEqual([
      'deliveries.bulkWrite(_id,lease_token) -> _id (stand-in: index)',
      'deliveries.find(_id) -> _id (stand-in: index)',
      'delivery_due.bulkWrite(_id) -> _id (stand-in: index)',
      'delivery_due.find(tenant_id,due_at) -> tenant_id,due_at,_id',
      'delivery_due.findOne(tenant_id,due_at) -> tenant_id,due_at,_id',
    ]);
  });

  it('lets two replicas polling at once claim each due delivery exactly once', async () => {
    const { deliveries, other } = store;
    const now = Date.now();
    await deliveries.insertNew(
      Array.from({ length: 40 }, (_, i) => pending(`r_${i}`, 'ten_race', new Date(now - 1_000))),
    );
    const one = poller(deliveries, 64, 64);
    const two = poller(other, 64, 64);
    await Promise.all([one.retryPoller.pollOnce(), two.retryPoller.pollOnce()]);
    const ids = [...one.queued, ...two.queued].filter((j) => j.tenantId === 'ten_race').map((j) => j.deliveryId);
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
  });

  it('moves a retry to its next attempt, drops a sent one, and drops entries whose delivery is gone', async () => {
    const { deliveries } = store;
    const now = Date.now();
    await deliveries.insertNew([
      pending('o_sent', 'ten_o', new Date(now - 1_000)),
      pending('o_retry', 'ten_o', new Date(now - 1_000)),
    ]);
    await deliveries.due.create({ _id: 'o_gone', tenant_id: 'ten_o', due_at: new Date(now - 1_000) });
    const { retryPoller, queued } = poller(deliveries, 64, 64);
    await retryPoller.pollOnce();
    const jobs = queued.filter((j) => j.tenantId === 'ten_o');
    expect(jobs.map((j) => j.deliveryId).sort()).toEqual(['o_retry', 'o_sent']);
    // Leased: not due again while the attempt runs.
    expect(await deliveries.due.exists({ _id: 'o_gone' })).toBeNull();

    const attempt = { number: 1, attemptedAt: new Date(), durationMs: 5, responseHeaders: {} };
    const retryAt = new Date(now + 5 * MINUTE);
    await deliveries.recordOutcomes([
      {
        id: 'o_sent',
        leaseToken: jobs[0]!.leaseToken,
        attempt: { ...attempt, success: true, responseStatus: 200 },
        status: 'delivered',
      },
      {
        id: 'o_retry',
        leaseToken: jobs[0]!.leaseToken,
        attempt: { ...attempt, success: false, responseStatus: 500 },
        status: 'pending',
        nextAttemptAt: retryAt,
      },
    ]);
    expect(await deliveries.due.exists({ _id: 'o_sent' })).toBeNull();
    const retry = await deliveries.due.findById('o_retry').lean();
    expect(retry?.due_at.getTime()).toBe(retryAt.getTime());
    // Not due yet: the next poll claims nothing of this tenant.
    await retryPoller.pollOnce();
    expect(queued.filter((j) => j.tenantId === 'ten_o')).toHaveLength(2);
  });

  it('prunes finished deliveries and stored events past retention in batches, keeping recent and pending ones', async () => {
    const { connection, deliveries, events } = store;
    const now = Date.now();
    await connection.collection('deliveries').deleteMany({});
    await seedHistory(connection, 1_200, new Date(now - 40 * DAY), 'expired');
    await seedHistory(connection, 5, new Date(now - 29 * DAY), 'recent');
    // An old delivery sent again by hand is pending: it stays whatever its age.
    await connection
      .collection('deliveries')
      .updateOne({ _id: 'expired_0' as never }, { $set: { status: 'pending', next_attempt_at: new Date(now + DAY) } });
    await events.recordMany([{ tenant_id: 'ten_e', id: 'evt_old' } as never], new Date(now - 40 * DAY));
    await events.recordMany([{ tenant_id: 'ten_e', id: 'evt_new' } as never], new Date(now - DAY));

    const seen = recordQueryShapes(connection);
    const cutoff = new Date(now - 30 * DAY);
    expect(await deliveries.pruneFinishedBefore(cutoff, 500)).toBe(1_199);
    expect(await events.pruneBefore(cutoff, 500)).toBe(1);
    connection.set('debug', false);

    const left = await connection
      .collection('deliveries')
      .find({}, { projection: { _id: 1 } })
      .toArray();
    expect(left.map((d) => String(d._id)).sort()).toEqual([
      'expired_0',
      ...Array.from({ length: 5 }, (_, i) => `recent_${i}`),
    ]);
    const batches = await connection.collection('event_batches').find({}).toArray();
    expect(batches.map((b) => (b.envelopes as Array<{ id: string }>)[0]!.id)).toEqual(['evt_new']);
    // Three batches of at most 500, each a bounded read of ids and a delete of those ids.
    const prunes = seen.filter(({ shape }) => shape.collection === 'deliveries');
    expect(prunes.filter(({ shape }) => shape.command === 'deleteMany')).toHaveLength(3);
    for (const { shape, filter } of seen)
      expect(servingIndex(shape, filter, declaredIndexes(connection, shape.collection)).mongo).toBeDefined();
    expect(await deliveries.pruneFinishedBefore(cutoff, 500)).toBe(0);
  });
});
