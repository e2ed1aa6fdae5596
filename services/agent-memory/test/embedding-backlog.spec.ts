import { randomBytes } from 'node:crypto';
import mongoose, { type Connection } from 'mongoose';
import { createLogger, Metrics } from '@agentplatform/service-kit';
import type { MemoryItem } from '../src/domain/memory';
import type { EmbeddingProvider } from '../src/embeddings/embedding-provider';
import { MemoryRepository } from '../src/persistence/memory.repository';
import { RecordingIndex } from '../src/testing/in-memory';
import { EmbeddingBacklog } from '../src/use-cases/embedding-backlog';

/**
 * The embedding backlog on the real repository, against the MongoDB-compatible server the jest
 * global setup starts (the stand-in, which scans the collection for any filter that is not a
 * unique index's keys). Every database command is recorded through the driver's monitoring.
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
  const commands: Command[] = [];

  beforeEach(async () => {
    const dbName = `agent_memory_backlog_${randomBytes(4).toString('hex')}`;
    connection = await mongoose
      .createConnection(process.env.MONGODB_URI!, { dbName, monitorCommands: true })
      .asPromise();
    observer = await mongoose.createConnection(process.env.MONGODB_URI!, { dbName }).asPromise();
    memories = new MemoryRepository(connection);
    await memories.init();
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
        memories,
        agents: { bumpMemoryVersion: async () => ++version } as never,
        embedder,
        index: new RecordingIndex() as never,
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

  it('drains a burst looking the collection over a few times in all, not once per batch', async () => {
    const count = 400;
    await memories.insertMany(Array.from({ length: count }, (_, n) => item(n)));
    const embedder = recordingEmbedder();
    const loop = backlog(embedder);
    commands.length = 0;
    const started = Date.now();
    loop.start();
    await untilDrained();
    await loop.stop();
    const seconds = Math.ceil((Date.now() - started) / 1_000);

    // Every item once, with its vector stored.
    expect(embedder.texts).toHaveLength(count);
    expect(new Set(embedder.texts).size).toBe(count);
    const loaded = await memories.loadAgent(TENANT, AGENT);
    expect(loaded.filter((m) => m.embedding?.provider === PROVIDER)).toHaveLength(count);

    // 25 batches. Claims and stores go by primary key (and lease token); what is not by primary
    // key is the look-up of waiting items and the count of the backlog's size. Before, every
    // batch made three such queries (80 in this test), each a scan of the whole collection on
    // the stand-in, as was every item's store until the (embed_token, _id) index.
    const scans = commands.flatMap((c) => c.filters).filter((f) => !byPrimaryKey(f));
    // Besides the look-ups when candidates run out, one a second for tenants not among them.
    expect(scans.length).toBeLessThanOrEqual(5 + seconds);
    expect(scans.length).toBeLessThan(count / 16 / 2);
    // Per batch: the claim (an update of each candidate, a read of the claimed) and the store
    // (an update of each, a read of the stored).
    expect(commands.length).toBeLessThanOrEqual((count / 16) * 4 + 6);
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
    const now = new Date();
    const found = await memories.findPending(PROVIDER, 10, now);
    expect(found.map((c) => c.id)).toEqual(['mem_00001', 'mem_00002', 'mem_00003', 'mem_00004']);

    // Another replica claims mem_00001 after the look-up: this one's claim skips it.
    expect((await memories.claim([found[0]], PROVIDER, 'other', new Date(Date.now() + 60_000))).length).toBe(1);
    const mine = await memories.claim(found.slice(0, 2), PROVIDER, 'mine', new Date(Date.now() + 60_000));
    expect(mine.map((c) => c.id)).toEqual(['mem_00002']);

    // A live lease hides an item from the look-up; an expired one shows it with its token, and
    // the claim takes it over from that token only.
    expect((await memories.findPending(PROVIDER, 10, new Date())).map((c) => c.id)).toEqual(['mem_00003', 'mem_00004']);
    await memories.claim([found[2]], PROVIDER, 'crashed', new Date(Date.now() - 1));
    const expired = (await memories.findPending(PROVIDER, 10, new Date())).find((c) => c.id === 'mem_00003');
    expect(expired).toEqual({ id: 'mem_00003', tenantId: TENANT, length: 'fact number 3'.length, token: 'crashed' });
    expect(await memories.claim([{ id: 'mem_00003' }], PROVIDER, 'stale', new Date(Date.now() + 60_000))).toEqual([]);
    const takenOver = await memories.claim([expired!], PROVIDER, 'mine', new Date(Date.now() + 60_000));
    expect(takenOver.map((c) => c.id)).toEqual(['mem_00003']);

    // mem_00004 gets its vector through another replica after this one looked it up: claiming
    // it again lets it go and answers nothing to embed.
    await memories.claim([found[3]], PROVIDER, 'other', new Date(Date.now() + 60_000));
    const vector = { provider: PROVIDER, dimension: 3, vector: new Float32Array([1, 0, 0]) };
    expect((await memories.storeClaimed('other', [{ id: 'mem_00004', embedding: vector }])).length).toBe(1);
    expect(await memories.claim([found[3]], PROVIDER, 'mine', new Date(Date.now() + 60_000))).toEqual([]);
    const raw = await connection.db!.collection('memories').findOne({ _id: 'mem_00004' as never });
    expect(raw?.embed_token).toBeUndefined();

    // Storing needs the token still in place: the lease's holder stores, a former holder does not.
    expect((await memories.storeClaimed('crashed', [{ id: 'mem_00003', embedding: vector }])).length).toBe(0);
    expect((await memories.storeClaimed('mine', [{ id: 'mem_00003', embedding: vector }])).length).toBe(1);
  });

  it('looks up the waiting items of the tenants it does not hold candidates of', async () => {
    await memories.insertMany([item(1), item(2, 'ten_other'), item(3), item(4, 'ten_third')]);
    const all = await memories.findPending(PROVIDER, 10, new Date());
    expect(all.map((c) => [c.id, c.tenantId])).toEqual([
      ['mem_00001', TENANT],
      ['mem_00002', 'ten_other'],
      ['mem_00003', TENANT],
      ['mem_00004', 'ten_third'],
    ]);
    const others = await memories.findPending(PROVIDER, 10, new Date(), { exceptTenants: [TENANT, 'ten_third'] });
    expect(others.map((c) => c.id)).toEqual(['mem_00002']);
    const agent = await memories.findPending(PROVIDER, 10, new Date(), { agent: { tenantId: TENANT, agentId: AGENT } });
    expect(agent.map((c) => c.id)).toEqual(['mem_00001', 'mem_00003']);
  });
});
