import { randomBytes } from 'node:crypto';
import mongoose, { Schema, type Connection, type Model } from 'mongoose';
import { buildIndexes, findPage } from './mongo.js';

interface ItemDoc {
  _id: string;
  tenant_id: string;
  n: number;
}

/** Runs against the MongoDB-compatible server the jest global setup starts. */
describe('findPage', () => {
  let connection: Connection;
  let model: Model<ItemDoc>;

  beforeAll(async () => {
    connection = await mongoose
      .createConnection(process.env.MONGODB_URI!, { dbName: `find_page_${randomBytes(4).toString('hex')}` })
      .asPromise();
    model = connection.model<ItemDoc>('Item', new Schema<ItemDoc>({ _id: String, tenant_id: String, n: Number }));
    // 45 items of one tenant, 7 of another: a tenant's total never counts the other's.
    await model.insertMany([
      ...Array.from({ length: 45 }, (_, i) => ({ _id: `a${String(i).padStart(2, '0')}`, tenant_id: 't1', n: i })),
      ...Array.from({ length: 7 }, (_, i) => ({ _id: `b${i}`, tenant_id: 't2', n: i })),
    ]);
  });

  afterAll(async () => {
    await connection?.dropDatabase();
    await connection?.close();
  });

  const page = (tenantId: string, skip: number, limit: number) =>
    findPage(model, { tenant_id: tenantId }, { sort: { n: -1 }, skip, limit, projection: { n: 1 } });

  it('answers a full page in order with the total of the whole list', async () => {
    const { docs, total } = await page('t1', 20, 20);
    expect(total).toBe(45);
    expect(docs.map((d) => d.n)).toEqual(Array.from({ length: 20 }, (_, i) => 24 - i));
  });

  it('answers the last, partial page with the same total', async () => {
    const { docs, total } = await page('t1', 40, 20);
    expect(total).toBe(45);
    expect(docs.map((d) => d.n)).toEqual([4, 3, 2, 1, 0]);
  });

  it("answers a list that fits one page with its total, and only the tenant's items", async () => {
    const { docs, total } = await page('t2', 0, 20);
    expect(total).toBe(7);
    expect(docs).toHaveLength(7);
    expect(docs.every((d) => d._id.startsWith('b'))).toBe(true);
  });

  it('answers a page past the end empty, with the real total', async () => {
    expect(await page('t1', 60, 20)).toEqual({ docs: [], total: 45 });
    expect(await page('t3', 0, 20)).toEqual({ docs: [], total: 0 });
  });

  it('answers a list that ends exactly at a page boundary with its total', async () => {
    const { docs, total } = await page('t1', 25, 20);
    expect(docs).toHaveLength(20);
    expect(total).toBe(45);
  });
});

describe('buildIndexes', () => {
  it("has built every compiled model's indexes when it returns", async () => {
    const connection = await mongoose
      .createConnection(process.env.MONGODB_URI!, { dbName: `build_indexes_${randomBytes(4).toString('hex')}` })
      .asPromise();
    try {
      const schema = (field: string) =>
        new Schema({ _id: String, [field]: String }).index({ [field]: 1 }, { unique: true });
      const models = [connection.model('First', schema('a')), connection.model('Second', schema('b'))];
      await buildIndexes(connection);
      const names = await Promise.all(models.map(async (m) => (await m.collection.indexes()).map((i) => i.name)));
      expect(names).toEqual([expect.arrayContaining(['a_1']), expect.arrayContaining(['b_1'])]);
    } finally {
      await connection.dropDatabase();
      await connection.close();
    }
  });
});
