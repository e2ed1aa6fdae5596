import { randomBytes } from 'node:crypto';
import mongoose from 'mongoose';
import { buildIndexes, callVerdicts, recordQueryShapes } from '@agentplatform/service-kit';
import { suiteFixture } from '@agentplatform/testing';
import { deliveryIdFor } from '../src/domain/delivery-id';
import { DeliveryRepository, type NewDelivery } from '../src/persistence/delivery.repository';

const DAY = 24 * 60 * 60_000;

async function startStore() {
  const dbName = `webhook_lists_${randomBytes(4).toString('hex')}`;
  const connection = await mongoose.createConnection(process.env.MONGODB_URI!, { dbName }).asPromise();
  const deliveries = new DeliveryRepository(connection);
  await buildIndexes(connection);
  return {
    connection,
    deliveries,
    async stop() {
      await connection.dropDatabase();
      await connection.close();
    },
  };
}

function delivery(webhookId: string, n: number, at: Date): NewDelivery {
  const eventId = `evt_${webhookId}_${n}`;
  return {
    id: deliveryIdFor(webhookId, eventId, at.toISOString()),
    tenantId: 'ten_a',
    webhookId,
    eventId,
    eventType: 'agent.created',
    body: '{}',
    createdAt: at,
  };
}

describe('the delivery log on the real MongoDB-compatible server', () => {
  const store = suiteFixture(() => startStore());

  it("pages a webhook's newest deliveries by _id, not by a scan of every delivery", async () => {
    const { connection, deliveries } = store;
    const start = Date.now() - DAY;
    // History: other webhooks' deliveries, which a sorted query would read on every page.
    for (let batch = 0; batch < 4; batch += 1)
      await deliveries.insertNew(
        Array.from({ length: 500 }, (_, i) => delivery(`wh_other${batch}`, i, new Date(start + i * 1_000))),
      );
    // Deliveries stored before windows existed, then new ones, one of them for an older event.
    const old = Array.from({ length: 30 }, (_, i) => delivery('wh_log', i, new Date(start + i * 60_000)));
    await deliveries.model.collection.insertMany(
      old.map((d) => ({ _id: d.id, tenant_id: d.tenantId, webhook_id: d.webhookId, event_id: d.eventId })) as never[],
    );
    await deliveries.insertNew(
      Array.from({ length: 15 }, (_, i) => delivery('wh_log', 100 + i, new Date(start + DAY / 2 + i * 1_000))),
    );
    await deliveries.insertNew([delivery('wh_log', 200, new Date(start + 45 * 60_000))]);
    const expected = async (limit: number) =>
      (await deliveries.model.find({ webhook_id: 'wh_log' }, { _id: 1 }).sort({ _id: -1 }).limit(limit).lean()).map(
        (d) => d._id,
      );

    // The first page fills the window from the deliveries stored before it (one scan, once).
    expect((await deliveries.list('ten_a', 'wh_log', 20)).map((d) => d.id)).toEqual(await expected(20));

    const [newest20, newest100] = [await expected(20), await expected(100)];
    const seen = recordQueryShapes(connection);
    const page = await deliveries.list('ten_a', 'wh_log', 20);
    const all = await deliveries.list('ten_a', 'wh_log', 100);
    await deliveries.insertNew([delivery('wh_log', 300, new Date())]);
    const after = await deliveries.list('ten_a', 'wh_log', 5);
    connection.set('debug', false);

    expect(page.map((d) => d.id)).toEqual(newest20);
    expect(all.map((d) => d.id)).toEqual(newest100);
    expect(all).toHaveLength(46);
    expect(after[0]!.eventId).toBe('evt_wh_log_300');
    expect(await deliveries.list('ten_b', 'wh_log', 20)).toEqual([]);
    // Every call the pages made is an index lookup on the stand-in; a sorted query scans again here.
    expect(callVerdicts(connection, seen)).toEqual(
      [
        'deliveries.find(_id) -> _id (stand-in: index)',
        'delivery_windows.bulkWrite(_id) -> _id (stand-in: index)',
        'delivery_windows.findOne(_id) -> _id (stand-in: index)',
      ].sort(),
    );
  });

  it("reads a new webhook's log by _id from its first page: its window is complete from the start", async () => {
    const { connection, deliveries } = store;
    const start = Date.now() - DAY;
    await deliveries.insertNew(Array.from({ length: 300 }, (_, i) => delivery('wh_busy', i, new Date(start + i))));
    await deliveries.openWebhook('wh_fresh');
    await deliveries.insertNew(Array.from({ length: 3 }, (_, i) => delivery('wh_fresh', i, new Date(start + i))));

    const seen = recordQueryShapes(connection);
    const first = await deliveries.list('ten_a', 'wh_fresh', 20);
    connection.set('debug', false);

    expect(first.map((d) => d.eventId)).toEqual(['evt_wh_fresh_2', 'evt_wh_fresh_1', 'evt_wh_fresh_0']);
    // Without the window opened with the webhook, the first page fills the window by the sorted query (a scan).
    expect(callVerdicts(connection, seen)).toEqual([
      'deliveries.find(_id) -> _id (stand-in: index)',
      'delivery_windows.findOne(_id) -> _id (stand-in: index)',
    ]);
  });

  it('skips an id whose delivery was never stored (the replica died between the two writes)', async () => {
    const { deliveries } = store;
    const start = Date.now();
    await deliveries.insertNew(
      Array.from({ length: 25 }, (_, i) => delivery('wh_torn', i, new Date(start + i * 1_000))),
    );
    // The window is written before the deliveries: a crash in between leaves ids that find nothing,
    // here the two newest of all.
    const lost = [
      delivery('wh_torn', 100, new Date(start + 60_000)),
      delivery('wh_torn', 101, new Date(start + 61_000)),
    ];
    await deliveries.newest.add(lost.map((d) => ({ parentId: 'wh_torn', id: d.id })));

    const page = await deliveries.list('ten_a', 'wh_torn', 20);
    const stored = (
      await deliveries.model.find({ webhook_id: 'wh_torn' }, { _id: 1 }).sort({ _id: -1 }).limit(20).lean()
    ).map((d) => d._id);
    expect(page.map((d) => d.id)).toEqual(stored);
    expect(page).toHaveLength(20);
    // A retry of the lost write stores them under the same ids, and the window shows them once.
    await deliveries.insertNew(lost);
    const after = await deliveries.list('ten_a', 'wh_torn', 3);
    expect(after.map((d) => d.eventId)).toEqual(['evt_wh_torn_101', 'evt_wh_torn_100', 'evt_wh_torn_24']);
  });

  it('falls back to the sorted query when a filter leaves the window short, and forgets a deleted webhook', async () => {
    const { deliveries } = store;
    const start = Date.now();
    await deliveries.insertNew(
      Array.from({ length: 210 }, (_, i) => delivery('wh_many', i, new Date(start + i * 1_000))),
    );
    const failed = delivery('wh_many', 999, new Date(start - DAY));
    await deliveries.insertNew([failed]);
    await deliveries.model.updateOne({ _id: failed.id }, { $set: { status: 'failed' } });
    // The failed delivery is older than the 200 ids the window keeps: found by the fallback.
    expect((await deliveries.list('ten_a', 'wh_many', 20, 'failed')).map((d) => d.id)).toEqual([failed.id]);
    expect(await deliveries.list('ten_a', 'wh_many', 20)).toHaveLength(20);

    await deliveries.deleteForWebhook('ten_a', 'wh_many');
    expect(await deliveries.newest.model.exists({ _id: 'wh_many' })).toBeNull();
    expect(await deliveries.list('ten_a', 'wh_many', 20)).toEqual([]);
  });
});
