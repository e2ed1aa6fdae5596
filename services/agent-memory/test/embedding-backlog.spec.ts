import { randomBytes } from 'node:crypto';
import mongoose, { type Connection } from 'mongoose';
import { createLogger, declaredIndexes, Metrics, recordQueryShapes, servingIndex } from '@agentplatform/service-kit';
import type { MemoryItem } from '../src/domain/memory';
import type { EmbeddingProvider } from '../src/embeddings/embedding-provider';
import { EmbeddingBacklog } from '../src/jobs/embedding-backlog';
import { EmbeddingBacklogRepository } from '../src/persistence/embedding-backlog.repository';
import { MemoryRepository } from '../src/persistence/memory.repository';
import { RecordingIndex } from '../src/testing/in-memory-memory';

/**
 * The embedding backlog on the real repositories, against the MongoDB-compatible server the jest
 * global setup starts (the stand-in, which scans the collection for any filter that is not a
 * unique index's keys). Every database command on the memories is recorded through the driver's
 * monitoring.
 */
const PROVIDER = 'test-embedder';
const TENANT = 'ten_backlog';
const AGENT = 'agt_backlog';

interface Command {
  name: string;
  /** The filters the command selects documents by (a find's, each update's, a count's match). */
  filters: Array<Record<string, unknown>>;
}

/** True for a filter answered by primary key: `_id` (a value or `$in`), alone or with the lease token. */
function byPrimaryKey(filter: Record<string, unknown>): boolean {
  const keys = Object.keys(filter).sort();
  return keys[0] === '_id' && (keys.length === 1 || (keys.length === 2 && keys[1] === 'embed_token'));
}

function item(n: number, tenantId = TENANT): MemoryItem {
  const at = new Date(Date.UTC(2026, 10, 24, 12, 0, 0, n));
  return {
    id: `mem_${String(n).padStart(5, '0')}`,
    tenantId,
    agentId: AGENT,
    memoryType: 'semantic',
    content: `fact number ${n}`,
    metadata: {},
    mergedFrom: [],
    createdAt: at,
    updatedAt: at,
  };
}

/** An embedder that records every text it was given (each call takes a moment, as a model does). */
function recordingEmbedder(): EmbeddingProvider & { texts: string[] } {
  const texts: string[] = [];
  return {
    id: PROVIDER,
    texts,
    async embed(batch) {
      texts.push(...batch);
      await new Promise((resolve) => setTimeout(resolve, 2));
      return batch.map((_, n) => new Float32Array([1, n / 100, 0.5]));
    },
  };
}

describe('embedding backlog on the database', () => {
  let connection: Connection;
  /** The test's own reads, on a connection of their own (not recorded). */
  let observer: Connection;
  let memories: MemoryRepository;
  let store: EmbeddingBacklogRepository;
  const commands: Command[] = [];

  beforeEach(async () => {
    const dbName = `agent_memory_backlog_${randomBytes(4).toString('hex')}`;
    connection = await mongoose
      .createConnection(process.env.MONGODB_URI!, { dbName, monitorCommands: true })
      .asPromise();
    observer = await mongoose.createConnection(process.env.MONGODB_URI!, { dbName }).asPromise();
    memories = new MemoryRepository(connection);
    store = new EmbeddingBacklogRepository(connection);
    await Promise.all([memories.init(), store.init()]);
    commands.length = 0;
    connection.getClient().on('commandStarted', (event) => {
      const command = event.command as Record<string, unknown>;
      if (command[event.commandName] !== 'memories') return;
      const filters: Array<Record<string, unknown>> = [];
      if (event.commandName === 'find') filters.push(command.filter as Record<string, unknown>);
      if (event.commandName === 'update') {
        for (const update of command.updates as Array<{ q: Record<string, unknown> }>) filters.push(update.q);
      }
      if (event.commandName === 'aggregate') {
        const match = (command.pipeline as Array<Record<string, unknown>>)[0]?.$match;
        if (match) filters.push(match as Record<string, unknown>);
      }
      commands.push({ name: event.commandName, filters });
    });
  });

  afterEach(async () => {
    await connection.dropDatabase();
    await connection.close();
    await observer.close();
  });

  function backlog(embedder: EmbeddingProvider) {
    let version = 0;
    return new EmbeddingBacklog(
      {
        store,
        agents: { bumpMemoryVersion: async () => ({ memoryVersion: ++version }) },
        embedder,
        index: new RecordingIndex(),
        logger: createLogger('agent-memory', 'silent'),
        metrics: new Metrics('agent-memory-test'),
      },
      // The service's default poll, which is also how often a busy loop looks for other tenants.
      { batchSize: 16, leaseMs: 60_000, idlePollMs: 1_000, yieldMs: 0 },
    );
  }

  async function untilDrained(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const waiting = () => observer.collection('memories').countDocuments({ 'embedding.provider': { $ne: PROVIDER } });
    while ((await waiting()) > 0) {
      if (Date.now() > deadline) throw new Error('the backlog did not drain');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('drains a burst without a query on the memories that is not by primary key but the start-up pass', async () => {
    const count = 400;
    await memories.insertMany(Array.from({ length: count }, (_, n) => item(n)));
    const embedder = recordingEmbedder();
    const loop = backlog(embedder);
    commands.length = 0;
    loop.start();
    await untilDrained();
    await loop.stop();
    const during = [...commands];

    // Every item once, with its vector stored, and no entry left waiting.
    expect(embedder.texts).toHaveLength(count);
    expect(new Set(embedder.texts).size).toBe(count);
    const loaded = await memories.loadAgent(TENANT, AGENT);
    expect(loaded.filter((m) => m.embedding?.provider === PROVIDER)).toHaveLength(count);
    expect(await observer.collection('memory_embedding_due').countDocuments()).toBe(0);

    // 25 batches. The look-ups read the due entries; on the memories, claims and stores go by
    // primary key (and lease token), and the only other query is the start-up pass for items a
    // former embedder left (once per start). Before the due entries, every look-up was a scan of
    // the memories on the stand-in, one a second even when nothing waited.
    const scans = during.flatMap((c) => c.filters).filter((f) => !byPrimaryKey(f));
    expect(scans).toEqual([{ 'embedding.provider': { $ne: PROVIDER } }]);
    // Per batch: the claim (an update of each candidate, a read of the claimed) and the store
    // (an update of each, a read of the stored).
    expect(during.length).toBeLessThanOrEqual((count / 16) * 4 + 6);
  });

  it('idles on many embedded items reading only the empty due entries', async () => {
    const embedded = Array.from({ length: 2_000 }, (_, n) => ({
      ...item(n),
      embedding: { provider: PROVIDER, dimension: 3, vector: new Float32Array([1, 0, 0]) },
    }));
    await memories.insertMany(embedded);
    const loop = new EmbeddingBacklog(
      {
        store,
        agents: { bumpMemoryVersion: async () => ({ memoryVersion: 1 }) },
        embedder: recordingEmbedder(),
        index: new RecordingIndex(),
        logger: createLogger('agent-memory', 'silent'),
        metrics: new Metrics('agent-memory-test'),
      },
      { batchSize: 16, leaseMs: 60_000, idlePollMs: 50, yieldMs: 0 },
    );
    commands.length = 0;
    loop.start();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await loop.stop();
    // About twenty polls in that second: none of them touched the memories after the start-up pass.
    expect(commands.map((c) => c.name)).toEqual(['find']);
  });

  it('serves every call of a drain by an index, on the stand-in all but the look-up of due entries', async () => {
    await memories.insertMany(Array.from({ length: 40 }, (_, n) => item(n)));
    await memories.update(TENANT, 'mem_00001', { content: 'changed meanwhile' }, new Date());
    const seen = recordQueryShapes(connection);
    const loop = backlog(recordingEmbedder());
    loop.start();
    await untilDrained();
    await loop.stop();
    connection.set('debug', false);

    const verdicts = seen.map(({ shape, filter }) => {
      const verdict = servingIndex(shape, filter, declaredIndexes(connection, shape.collection));
      return `${shape.collection}.${shape.command}(${[...shape.equality, ...shape.range].join(',')}) -> ${verdict.mongo}${verdict.standIn ? ' (stand-in: index)' : ''}`;
    });
    expect([...new Set(verdicts)].sort()).toEqual(
      [
        // The start-up pass for a former embedder's items: once per start.
        'memories.find(embedding.provider) -> embedding.provider,tenant_id',
        'memories.bulkWrite(_id,embed_token) -> _id (stand-in: index)',
        'memories.find(_id) -> _id (stand-in: index)',
        'memory_embedding_due.bulkWrite(_id) -> _id (stand-in: index)',
        'memory_embedding_due.bulkWrite(_id,rev) -> _id (stand-in: index)',
        // The look-up: on the stand-in a scan of what waits, never of what is stored.
        'memory_embedding_due.find(due_at) -> due_at,_id',
      ].sort(),
    );
  });

  it('embeds every item once with two replicas drawing from the same candidates', async () => {
    const count = 300;
    await memories.insertMany(Array.from({ length: count }, (_, n) => item(n)));
    const first = recordingEmbedder();
    const second = recordingEmbedder();
    const loops = [backlog(first), backlog(second)];
    for (const loop of loops) loop.start();
    await untilDrained();
    await Promise.all(loops.map((loop) => loop.stop()));

    const texts = [...first.texts, ...second.texts];
    expect(texts).toHaveLength(count);
    expect(new Set(texts).size).toBe(count);
  });

  it('claims by lease token: a taken candidate is skipped, an expired lease is taken over', async () => {
    await memories.insertMany([item(1), item(2), item(3), item(4)]);
    const future = () => new Date(Date.now() + 60_000);
    const found = (await store.findPending(10, new Date())).sort((a, b) => a.id.localeCompare(b.id));
    expect(ids(found)).toEqual(['mem_00001', 'mem_00002', 'mem_00003', 'mem_00004']);

    // Another replica claims mem_00001 after the look-up: this one's claim skips it.
    expect((await store.claim([found[0]], PROVIDER, 'other', future())).length).toBe(1);
    const mine = await store.claim(found.slice(0, 2), PROVIDER, 'mine', future());
    expect(ids(mine)).toEqual(['mem_00002']);

    // A live lease hides an item from the look-up; an expired one shows it with its token, and
    // the claim takes it over from that token only.
    expect(ids(await store.findPending(10, new Date()))).toEqual(['mem_00003', 'mem_00004']);
    await store.claim([found[2]], PROVIDER, 'crashed', new Date(Date.now() - 1));
    const expired = (await store.findPending(10, new Date())).find((c) => c.id === 'mem_00003');
    expect(expired).toEqual({
      id: 'mem_00003',
      tenantId: TENANT,
      length: 'fact number 3'.length,
      token: 'crashed',
      rev: 'crashed',
    });
    expect(await store.claim([{ ...expired!, token: undefined }], PROVIDER, 'stale', future())).toEqual([]);
    const takenOver = await store.claim([expired!], PROVIDER, 'mine', future());
    expect(ids(takenOver)).toEqual(['mem_00003']);

    // mem_00004 gets its vector through another replica after this one looked it up: claiming
    // it again lets it go and answers nothing to embed.
    await store.claim([found[3]], PROVIDER, 'other', future());
    const vector = { provider: PROVIDER, dimension: 3, vector: new Float32Array([1, 0, 0]) };
    expect((await store.storeClaimed('other', [{ id: 'mem_00004', embedding: vector }])).length).toBe(1);
    expect(await store.claim([found[3]], PROVIDER, 'mine', future())).toEqual([]);
    const raw = await observer
      .collection<{ _id: string; embed_token?: string }>('memories')
      .findOne({ _id: 'mem_00004' });
    expect(raw?.embed_token).toBeUndefined();

    // Storing needs the token still in place: the lease's holder stores, a former holder does not.
    expect((await store.storeClaimed('crashed', [{ id: 'mem_00003', embedding: vector }])).length).toBe(0);
    expect((await store.storeClaimed('mine', [{ id: 'mem_00003', embedding: vector }])).length).toBe(1);
    // The stored items' entries are closed; the claimed ones wait for their lease.
    const due = observer.collection<{ _id: string }>('memory_embedding_due');
    expect((await due.find().toArray()).map((e) => e._id).sort()).toEqual(['mem_00001', 'mem_00002']);
  });

  it('keeps waiting an item whose content changed while a batch held the old content', async () => {
    await memories.insertMany([item(1)]);
    const [found] = await store.findPending(10, new Date());
    expect(await store.claim([found], PROVIDER, 'mine', new Date(Date.now() + 60_000))).toHaveLength(1);
    await memories.update(TENANT, 'mem_00001', { content: 'a new fact' }, new Date());

    const vector = { provider: PROVIDER, dimension: 3, vector: new Float32Array([1, 0, 0]) };
    expect(await store.storeClaimed('mine', [{ id: 'mem_00001', embedding: vector }])).toEqual([]);
    const again = await store.findPending(10, new Date());
    expect(again).toEqual([
      { id: 'mem_00001', tenantId: TENANT, length: 'a new fact'.length, rev: expect.any(String) },
    ]);
    expect(again[0].rev).not.toBe(found.rev);
  });

  it('opens an entry at start for every item another embedder left, and drops those of deleted items', async () => {
    const former = { provider: 'former-embedder', dimension: 3, vector: new Float32Array([0, 1, 0]) };
    await memories.insertMany([{ ...item(1), embedding: former }, { ...item(2), embedding: former }, item(3)]);
    expect(ids(await store.findPending(10, new Date()))).toEqual(['mem_00003']);
    expect(await store.openMissing(PROVIDER, new Date())).toBe(3);
    expect(ids(await store.findPending(10, new Date()))).toEqual(['mem_00001', 'mem_00002', 'mem_00003']);
    expect(await store.countPending()).toBe(3);

    await memories.delete(TENANT, 'mem_00002');
    expect(ids(await store.findPending(10, new Date()))).toEqual(['mem_00001', 'mem_00003']);
    await memories.deleteAgent(TENANT, AGENT);
    expect(await store.findPending(10, new Date())).toEqual([]);
  });

  it('looks up the waiting items of the tenants it does not hold candidates of', async () => {
    await memories.insertMany([item(1), item(2, 'ten_other'), item(3), item(4, 'ten_third')]);
    const all = await store.findPending(10, new Date());
    expect(all.map((c) => [c.id, c.tenantId])).toEqual([
      ['mem_00001', TENANT],
      ['mem_00002', 'ten_other'],
      ['mem_00003', TENANT],
      ['mem_00004', 'ten_third'],
    ]);
    const others = await store.findPending(10, new Date(), { exceptTenants: [TENANT, 'ten_third'] });
    expect(others.map((c) => c.id)).toEqual(['mem_00002']);
    const agent = await store.findPending(10, new Date(), { agent: { tenantId: TENANT, agentId: AGENT } });
    expect(agent.map((c) => c.id)).toEqual(['mem_00001', 'mem_00003']);
  });
});

function ids(found: Array<{ id: string }>): string[] {
  return found.map((c) => c.id).sort();
}
