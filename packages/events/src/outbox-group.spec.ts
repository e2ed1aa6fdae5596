import { runWithContext } from '@agentplatform/service-kit';
import type { ClientSession, Connection } from 'mongoose';
import { createEvent } from './envelope';
import { Outbox, type GroupWrite, type OutboxDocument } from './outbox';

/**
 * A database with the transaction semantics the outbox relies on: a transaction's writes become
 * visible together when its callback returns, and none of them when it throws. Without
 * transactions every write is visible at once. Domain writes are names in `rows`; a name starting
 * with "bad" fails its write.
 */
function fakeDatabase(transactional: boolean) {
  const rows: string[] = [];
  const records: OutboxDocument[] = [];
  let transactions = 0;
  type Session = { rows: string[]; records: OutboxDocument[] };
  const collection = {
    collectionName: 'outbox',
    insertMany: async (docs: OutboxDocument[]) => {
      records.push(...docs);
    },
  };
  const model = {
    init: async () => undefined,
    insertMany: async (docs: OutboxDocument[], options: { session: Session }) => {
      options.session.records.push(...docs);
    },
    collection,
    // documentsOf asks the model's connection for its collection by name.
    db: { collection: () => collection },
  };
  const connection = {
    db: { admin: () => ({ command: async () => (transactional ? { setName: 'rs0' } : {}) }) },
    models: { OutboxRecord: model },
    transaction: async <T>(fn: (session: Session) => Promise<T>) => {
      transactions += 1;
      const session: Session = { rows: [], records: [] };
      const result = await fn(session);
      rows.push(...session.rows);
      records.push(...session.records);
      return result;
    },
  };
  /** The domain writes of a group: each name is a row; "bad..." fails its own write only. */
  const write: GroupWrite<string, string> = async (names: string[], clientSession?: ClientSession) => {
    // The fake transaction hands its own session object in place of a driver session.
    const session = clientSession as unknown as Session | undefined;
    await new Promise((resolve) => setImmediate(resolve));
    return names.map((name) => {
      if (name.startsWith('bad')) return new Error(`cannot store ${name}`);
      (session ? session.rows : rows).push(name);
      return { result: name.toUpperCase(), events: [createEvent('agent.created', `ten_${name}`, {} as never)] };
    });
  };
  return {
    rows,
    records,
    write,
    transactions: () => transactions,
    open: () => Outbox.open(connection as unknown as Connection),
  };
}

describe('OutboxGroup', () => {
  it('commits concurrent runs in one transaction, each with its own result, events and request id', async () => {
    const db = fakeDatabase(true);
    const outbox = await db.open();
    const group = outbox.group(db.write);
    const enqueued: OutboxDocument[] = [];
    outbox.signals.on('enqueued', (records: OutboxDocument[]) => enqueued.push(...records));

    const first = runWithContext({ requestId: 'req_a' }, () => group.run('a'));
    const rest = ['b', 'c', 'd'].map((name) => runWithContext({ requestId: `req_${name}` }, () => group.run(name)));

    await expect(Promise.all([first, ...rest])).resolves.toEqual(['A', 'B', 'C', 'D']);
    // The lone first run, then the three that waited for it: two transactions, not four.
    expect(db.transactions()).toBe(2);
    expect(db.rows).toEqual(['a', 'b', 'c', 'd']);
    expect(db.records.map((r) => [r.envelope.tenant_id, r.request_id])).toEqual([
      ['ten_a', 'req_a'],
      ['ten_b', 'req_b'],
      ['ten_c', 'req_c'],
      ['ten_d', 'req_d'],
    ]);
    expect(enqueued.map((r) => r._id)).toEqual(db.records.map((r) => r._id));
  });

  it('retries every run of a failed group alone, so only the bad run fails and nothing of it is stored', async () => {
    const db = fakeDatabase(true);
    const outbox = await db.open();
    const group = outbox.group(db.write);
    const lone = group.run('x');
    const grouped = ['a', 'bad1', 'b'].map((name) => group.run(name).then(String, (e: Error) => e.message));

    await lone;
    await expect(Promise.all(grouped)).resolves.toEqual(['A', 'cannot store bad1', 'B']);
    // x alone; the aborted group of three; then a, bad1 and b in a transaction each.
    expect(db.transactions()).toBe(5);
    expect(db.rows.sort()).toEqual(['a', 'b', 'x']);
    expect(db.records.map((r) => r.envelope.tenant_id).sort()).toEqual(['ten_a', 'ten_b', 'ten_x']);
  });

  it('without transactions stores the events of the runs whose writes succeeded, in one insert', async () => {
    const db = fakeDatabase(false);
    const outbox = await db.open();
    const group = outbox.group(db.write);
    const enqueued: string[] = [];
    outbox.signals.on('enqueued', (records: OutboxDocument[]) =>
      enqueued.push(...records.map((r) => r.envelope.tenant_id)),
    );
    await group.run('x');
    const grouped = ['a', 'bad1', 'b'].map((name) => group.run(name).then(String, (e: Error) => e.message));

    await expect(Promise.all(grouped)).resolves.toEqual(['A', 'cannot store bad1', 'B']);
    expect(db.transactions()).toBe(0);
    expect(db.rows).toEqual(['x', 'a', 'b']);
    expect(enqueued).toEqual(['ten_x', 'ten_a', 'ten_b']);
    expect(db.records.map((r) => r.envelope.tenant_id)).toEqual(['ten_x', 'ten_a', 'ten_b']);
  });
});
