import { randomBytes } from 'node:crypto';
import mongoose from 'mongoose';
import { buildIndexes } from '@agentplatform/service-kit';
import { suiteFixture } from '@agentplatform/testing';
import { LoginThrottleRepository } from '../src/persistence/login-throttle.repository';

/** Identity's login throttles on the real MongoDB-compatible server, which never expires documents by TTL. */
async function startStore() {
  const connection = await mongoose
    .createConnection(process.env.MONGODB_URI!, { dbName: `identity_retention_${randomBytes(4).toString('hex')}` })
    .asPromise();
  const throttles = new LoginThrottleRepository(connection);
  await buildIndexes(connection);
  return {
    connection,
    throttles,
    async stop() {
      await connection.dropDatabase();
      await connection.close();
    },
  };
}

describe('login throttle retention on the real MongoDB-compatible server', () => {
  const store = suiteFixture(() => startStore());

  it('prunes counters past their window and lock, and keeps a live window and a running lock', async () => {
    const { connection, throttles } = store;
    const now = new Date();
    const policy = { windowMs: 60_000 };
    // Counted long ago: their windows are over.
    for (const account of ['old-1@x.test', 'old-2@x.test', 'old-3@x.test'])
      await throttles.countAttempt(account, new Date(now.getTime() - 3_600_000), policy);
    await throttles.countAttempt('live@x.test', now, policy);
    await throttles.countAttempt('locked@x.test', new Date(now.getTime() - 3_600_000), policy);
    await throttles.lock('locked@x.test', new Date(now.getTime() + 600_000));

    expect(await throttles.pruneExpired(now, 2)).toBe(3);
    const left = await connection.collection('login_throttles').find({}).toArray();
    expect(left.map((d) => String(d._id)).sort()).toEqual(['live@x.test', 'locked@x.test']);
    // The live window still counts on.
    expect((await throttles.countAttempt('live@x.test', now, policy)).attempt).toBe(2);
  });
});
