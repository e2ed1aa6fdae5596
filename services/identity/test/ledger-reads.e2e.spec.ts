import { randomBytes } from 'node:crypto';
import mongoose from 'mongoose';
import { buildIndexes, callVerdicts, recordQueryShapes } from '@agentplatform/service-kit';
import { suiteFixture } from '@agentplatform/testing';
import { chainEntryId } from '../src/domain/credit-chain';
import { CreditRepository } from '../src/persistence/credit.repository';
import type { CreditEntryDocument } from '../src/persistence/credit.schema';

async function startLedger() {
  const dbName = `ledger_reads_${randomBytes(4).toString('hex')}`;
  const connection = await mongoose.createConnection(process.env.MONGODB_URI!, { dbName }).asPromise();
  const credits = new CreditRepository(connection);
  await buildIndexes(connection);
  return {
    connection,
    credits,
    async stop() {
      await connection.dropDatabase();
      await connection.close();
    },
  };
}

/** A tenant's chain of `length` entries, each one credit more than the last, with its account. */
async function seedChain(connection: mongoose.Connection, tenantId: string, length: number): Promise<void> {
  await connection
    .collection('credit_accounts')
    .insertOne({ _id: tenantId as never, balance: 7, updated_at: new Date() });
  const entries: CreditEntryDocument[] = Array.from({ length }, (_, i) => ({
    _id: chainEntryId(tenantId, i + 1),
    tenant_id: tenantId,
    seq: i + 1,
    type: 'grant',
    amount: 1,
    balance_after: 1_000 + i + 1,
    idempotency_key: `${tenantId}:op:${i + 1}`,
    description: '',
    created_at: new Date(),
  }));
  for (let i = 0; i < entries.length; i += 1_000)
    await connection.collection<CreditEntryDocument>('credit_entries').insertMany(entries.slice(i, i + 1_000));
}

/**
 * The ledger's repeated reads on the real MongoDB-compatible server (issue 38): the end of a
 * tenant's chain (read after every lost link and for each balance) and entries by key (every
 * retried charge) are `_id` and unique-key look-ups, where the sort by `seq` and the `$in` over
 * the compound key scanned the whole ledger on the stand-in.
 */
describe('ledger reads on a long ledger', () => {
  const store = suiteFixture(() => startLedger());
  const lengths = [1, 2, 3, 63, 64, 65, 1_023, 1_024, 1_025, 4_000];

  beforeAll(async () => {
    for (const length of lengths) await seedChain(store.connection, `ten_len${length}`, length);
    await store.connection
      .collection('credit_accounts')
      .insertOne({ _id: 'ten_fresh' as never, balance: 7, updated_at: new Date() });
  });

  it('finds the end of every chain by _id look-ups alone', async () => {
    const { connection, credits } = store;
    const seen = recordQueryShapes(connection);
    for (const length of lengths)
      expect(await credits.head(`ten_len${length}`)).toEqual({ seq: length, balance: 1_000 + length });
    // An account without chained entries starts its chain from the balance it stored.
    expect(await credits.head('ten_fresh')).toEqual({ seq: 0, balance: 7 });
    expect(await credits.head('ten_missing')).toBeUndefined();
    connection.set('debug', false);
    expect(callVerdicts(connection, seen)).toEqual([
      'credit_accounts.findOne(_id) -> _id (stand-in: index)',
      'credit_entries.find(_id) -> _id (stand-in: index)',
    ]);
  });

  it('reads entries by key one unique-key look-up each, never another tenant’s', async () => {
    const { connection, credits } = store;
    const seen = recordQueryShapes(connection);
    const found = await credits.findByKeys('ten_len4000', [
      'ten_len4000:op:17',
      'ten_len4000:op:3999',
      'ten_len4000:op:17',
      'ten_len4000:op:missing',
      'ten_len64:op:5',
    ]);
    connection.set('debug', false);
    expect(found.map((e) => e.seq).sort((a, b) => a! - b!)).toEqual([17, 3999]);
    expect(callVerdicts(connection, seen)).toEqual([
      'credit_entries.findOne(tenant_id,idempotency_key) -> tenant_id,idempotency_key (stand-in: index)',
    ]);
  });
});
