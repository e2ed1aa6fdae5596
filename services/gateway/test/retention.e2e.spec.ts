import { randomBytes } from 'node:crypto';
import mongoose from 'mongoose';
import { SecretBox } from '@agentplatform/service-kit';
import { suiteFixture } from '@agentplatform/testing';
import { IdempotencyStore } from '../src/middleware/idempotency';
import { pruneExpiredCounters } from '../src/middleware/rate-limit';

const HOUR = 3_600_000;

/** The gateway's database on the real MongoDB-compatible server, which never expires documents by TTL. */
async function startStore() {
  const connection = await mongoose
    .createConnection(process.env.MONGODB_URI!, { dbName: `gateway_retention_${randomBytes(4).toString('hex')}` })
    .asPromise();
  const idempotency = new IdempotencyStore(connection, {
    ttlHours: 24,
    box: SecretBox.fromKeyring(`test:${randomBytes(32).toString('base64')}`),
  });
  await idempotency.init();
  return {
    connection,
    idempotency,
    async stop() {
      await connection.dropDatabase();
      await connection.close();
    },
  };
}

describe('gateway retention on the real MongoDB-compatible server', () => {
  const store = suiteFixture(() => startStore());

  it('prunes Idempotency-Key records older than the TTL in batches and keeps the rest', async () => {
    const { connection, idempotency } = store;
    const now = new Date();
    const record = (id: string, ageHours: number) => ({
      _id: id,
      fingerprint: 'f',
      state: 'done',
      status: 201,
      created_at: new Date(now.getTime() - ageHours * HOUR),
    });
    await connection
      .collection('idempotency_keys')
      .insertMany([
        record('ten:usr:old-1', 25),
        record('ten:usr:old-2', 30),
        record('ten:usr:old-3', 48),
        record('ten:usr:fresh', 23),
      ] as never[]);
    const deletes: string[] = [];
    connection.set('debug', (collection: string, command: string) => {
      if (collection === 'idempotency_keys' && command === 'deleteMany') deletes.push(command);
    });
    expect(await idempotency.prune(now, 2)).toBe(3);
    connection.set('debug', false);
    expect(deletes).toHaveLength(2);
    const left = await connection.collection('idempotency_keys').find({}).toArray();
    expect(left.map((d) => String(d._id))).toEqual(['ten:usr:fresh']);
  });

  it('prunes rate-limit counters whose window is over and keeps the live ones', async () => {
    const { connection } = store;
    const now = new Date();
    await connection.collection('rate_limits').insertMany([
      { key: 'tenant_minute:ten_a', points: 5, expire: new Date(now.getTime() - 60_000) },
      { key: 'address:10.0.0.1', points: 1, expire: new Date(now.getTime() - 1) },
      { key: 'tenant_day:ten_a', points: 5, expire: new Date(now.getTime() + HOUR) },
    ]);
    expect(await pruneExpiredCounters(connection, now, 500)).toBe(2);
    const left = await connection.collection('rate_limits').find({}).toArray();
    expect(left.map((d) => d.key)).toEqual(['tenant_day:ten_a']);
  });
});
