import { setTimeout as delay } from 'node:timers/promises';
import { createLogger, Metrics } from '@agentplatform/service-kit';
import type { ClaimedItem, PendingItem, PendingScope } from '../domain/memory.js';
import type { EmbeddingProvider } from '../embeddings/embedding-provider.js';
import { modelWork } from '../embeddings/word-pieces.js';
import { RecordingIndex } from '../testing/in-memory-memory.js';
import { CANDIDATES_PER_LOOKUP, EmbeddingBacklog, type EmbeddingBacklogStore } from './embedding-backlog.js';

/** The backlog's store in memory: items waiting for a vector, leases. */
class PendingItems implements EmbeddingBacklogStore {
  readonly items = new Map<string, ClaimedItem & { token?: string; vector?: boolean }>();
  /** Look-ups of waiting items (the query that is not by primary key), and the limits asked. */
  readonly lookups: number[] = [];
  /** Called with a look-up's answer before it is returned (another replica acting meanwhile). */
  afterLookup: (found: PendingItem[]) => void = () => undefined;
  /** Tenants left out by each look-up. */
  readonly exceptTenants: string[][] = [];
  /** How long a claim takes (a loaded database's round trip). */
  claimMs = 0;
  add(id: string, tenantId = 't1', content = `fact ${id}`): void {
    this.items.set(id, { id, tenantId, agentId: `agt_${tenantId}`, content });
  }
  async openMissing(): Promise<number> {
    return 0;
  }
  async findPending(limit: number, _now: Date, scope: PendingScope = {}): Promise<PendingItem[]> {
    this.lookups.push(limit);
    this.exceptTenants.push(scope.exceptTenants ?? []);
    const found = [...this.items.values()]
      .filter((item) => !item.vector && !item.token && !scope.exceptTenants?.includes(item.tenantId))
      .slice(0, limit)
      .map(({ id, tenantId, content }) => ({ id, tenantId, length: content.length, rev: id }));
    this.afterLookup(found);
    return found;
  }
  /** As the repository: a compare-and-set of the lease token per item; one embedded meanwhile is let go. */
  async claim(candidates: PendingItem[], _provider: string, token: string): Promise<ClaimedItem[]> {
    if (this.claimMs > 0) await new Promise((resolve) => setTimeout(resolve, this.claimMs));
    const claimed: ClaimedItem[] = [];
    for (const candidate of candidates) {
      const item = this.items.get(candidate.id);
      if (!item || item.token !== candidate.token || item.vector) continue;
      item.token = token;
      claimed.push({ id: item.id, tenantId: item.tenantId, agentId: item.agentId, content: item.content });
    }
    return claimed;
  }
  async storeClaimed(token: string, vectors: Array<{ id: string }>) {
    const stored = vectors.map((v) => this.items.get(v.id)!).filter((item) => item.token === token);
    for (const item of stored) Object.assign(item, { token: undefined, vector: true });
    const at = new Date();
    return stored.map((item) => ({
      ...item,
      memoryType: 'semantic' as const,
      metadata: {},
      mergedFrom: [],
      createdAt: at,
      updatedAt: at,
    }));
  }
  async releaseClaim(token: string): Promise<void> {
    for (const item of this.items.values()) if (item.token === token) item.token = undefined;
  }
  async countPending(): Promise<number> {
    return [...this.items.values()].filter((item) => !item.vector).length;
  }
  get embedded(): number {
    return [...this.items.values()].filter((item) => item.vector).length;
  }
}

function setup(options: {
  yieldMs: number;
  quietMs: number;
  burstShare?: number;
  demandWindowMs?: number;
  embedMs?: number;
  /** Or a model call's time by its texts' work (modelWork): ms per unit. */
  msPerWork?: number;
  /**
   * How long each model call first waits behind queries; the embedder counts its model time
   * without these waits (backgroundModelMs), as the local model's queue does.
   */
  queueMs?: number;
  claimMs?: number;
  idlePollMs?: number;
}) {
  const memories = new PendingItems();
  memories.claimMs = options.claimMs ?? 0;
  /** When each model call started, in ms after `started`. */
  const calls: number[] = [];
  /** Every text the model was given. */
  const texts: string[] = [];
  const started = Date.now();
  let modelMs = 0;
  const embedder: EmbeddingProvider = {
    id: 'test-embedder',
    async embed(batch) {
      if (options.queueMs) await new Promise((resolve) => setTimeout(resolve, options.queueMs));
      calls.push(Date.now() - started);
      texts.push(...batch);
      const modelStarted = Date.now();
      const ms = options.embedMs ?? (options.msPerWork ?? 0) * batch.reduce((sum, t) => sum + modelWork(t.length), 0);
      if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
      modelMs += Date.now() - modelStarted;
      return batch.map(() => new Float32Array([1, 0]));
    },
    ...(options.queueMs === undefined ? {} : { backgroundModelMs: () => modelMs }),
  };
  const metrics = new Metrics('agent-memory-test');
  let version = 0;
  const backlog = new EmbeddingBacklog(
    {
      store: memories,
      agents: { bumpMemoryVersion: async () => ({ memoryVersion: ++version }) },
      embedder,
      index: new RecordingIndex(),
      logger: createLogger('agent-memory', 'silent'),
      metrics,
    },
    {
      batchSize: 4,
      leaseMs: 60_000,
      idlePollMs: options.idlePollMs ?? 50,
      yieldMs: options.yieldMs,
      quietMs: options.quietMs,
      burstShare: options.burstShare,
      demandWindowMs: options.demandWindowMs,
    },
  );
  /** A write on this replica: an item stored without a vector, and the kick the add path gives. */
  let n = 0;
  const write = () => {
    const id = `mem_${n++}`;
    memories.add(id);
    backlog.kick([memories.items.get(id)!]);
  };
  /** The gauge of the writes' demand on the model, as /metrics shows it. */
  const writeDemand = async () =>
    (await metrics.registry.getSingleMetric('agent_memory_embedding_write_demand')!.get()).values[0].value;
  return { memories, calls, texts, started, backlog, write, written: () => n, writeDemand };
}

/** Whether the spec runs on jest's fake clock (the yielding specs below). */
let fakeClock = false;

/** Lets `ms` pass: on the fake clock inside the yielding specs, on the real one elsewhere. */
async function elapse(ms: number): Promise<void> {
  if (fakeClock) await jest.advanceTimersByTimeAsync(ms);
  else await delay(ms);
}

/** A write every `everyMs` until `ms` after the set-up started; answers when the burst ended (ms after the start). */
async function writeUntil(s: { started: number; write(): void }, ms: number, everyMs = 10): Promise<number> {
  while (Date.now() - s.started < ms) {
    s.write();
    await elapse(everyMs);
  }
  return Date.now() - s.started;
}

/** Stops the backlog on the fake clock: the model call in progress ends as the clock moves. */
async function stopOnFakeClock(backlog: EmbeddingBacklog): Promise<void> {
  const stopped = backlog.stop();
  await elapse(1_000);
  await stopped;
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await elapse(10);
  }
}

describe('embedding backlog yielding to a burst of writes', () => {
  // On jest's fake clock: the bursts below are seconds of writes every 10-20 ms, which real timers
  // made this file the slowest unit spec (10 s); the backlog's own timers and Date.now follow it.
  beforeEach(() => {
    jest.useFakeTimers();
    fakeClock = true;
  });
  afterEach(() => {
    jest.useRealTimers();
    fakeClock = false;
  });

  it('embeds nothing while the writes keep coming, then every item once they pause', async () => {
    // A quiet time far above the writes' 20 ms, so that a loaded machine's late timer is no pause.
    const { memories, calls, started, backlog, write, written } = setup({ yieldMs: 60_000, quietMs: 1_000 });
    backlog.start();
    try {
      // A burst: a write every 20 ms for 600 ms.
      while (Date.now() - started < 600) {
        write();
        await elapse(20);
      }
      const burstEnded = Date.now() - started;
      expect(calls).toEqual([]);
      expect(memories.embedded).toBe(0);
      await until(() => memories.embedded === written(), 10_000);
      // The model started only once the writes had paused for the quiet time.
      expect(calls[0]).toBeGreaterThanOrEqual(burstEnded + 500);
      expect(await memories.countPending()).toBe(0);
    } finally {
      await backlog.stop();
    }
  });

  it('keeps the bound: a burst longer than yieldMs is embedded while it still goes on', async () => {
    const { memories, calls, started, backlog, write, written } = setup({ yieldMs: 400, quietMs: 1_000 });
    backlog.start();
    try {
      // Writes every 20 ms for 2.5 s: never a quiet moment.
      while (Date.now() - started < 2_500) {
        write();
        await elapse(20);
      }
      // The first model call waited for the bound (from the first write), not for the end of the burst.
      expect(calls.length).toBeGreaterThan(0);
      expect(calls[0]).toBeGreaterThanOrEqual(400);
      expect(calls[0]).toBeLessThan(2_500);
      await until(() => memories.embedded === written(), 10_000);
      expect(await memories.countPending()).toBe(0);
    } finally {
      await backlog.stop();
    }
  });

  it('past the bound, takes a bounded share while the burst goes on, then catches up at full rate', async () => {
    // Each model call takes 40 ms; a write every 10 ms for 2.4 s, a bound of 400 ms, half a core.
    const paced = setup({ yieldMs: 400, quietMs: 150, embedMs: 40, burstShare: 0.5 });
    paced.backlog.start();
    try {
      const burstEnded = await writeUntil(paced, 2_400);
      const during = paced.calls.filter((at) => at < burstEnded).length;
      // Half of 2 s past the bound is 1 s of model time, about 25 calls of 40 ms: well below the 50
      // calls that 2 s at full rate allow, and still some (the backlog does not stop).
      expect(during).toBeGreaterThan(2);
      expect(during).toBeLessThanOrEqual(30);
      expect(paced.memories.embedded).toBeLessThanOrEqual(30 * 4);
      await until(() => paced.memories.embedded === paced.written(), 20_000);
      // After the burst, at full rate: the rest (over 100 batches of 4) came without rests.
      const after = paced.calls.filter((at) => at >= burstEnded);
      const rate = (after.length - 1) / ((after[after.length - 1] - after[0]) / 1_000);
      expect(rate).toBeGreaterThan(8); // 25/s at most; about 6/s if it still rested
    } finally {
      await paced.backlog.stop();
    }
  });

  it('works at full rate while the writes alone need more than its share', async () => {
    // Writes every 10 ms (100 items a second), model calls of 4 items in 40 ms (10 ms an item): the
    // writes alone need the whole model, more than half a core. Once a window of 500 ms has
    // measured that, the backlog stops resting. In each second it kept to half a core it would make
    // about 12 calls; at full rate about 25.
    const behind = setup({ yieldMs: 400, quietMs: 150, embedMs: 40, burstShare: 0.5, demandWindowMs: 500 });
    behind.backlog.start();
    try {
      const burstEnded = await writeUntil(behind, 3_000);
      const calls = (from: number, to: number) => behind.calls.filter((at) => at >= from && at < to).length;
      expect(burstEnded).toBeGreaterThanOrEqual(2_600);
      expect(calls(1_600, 2_600)).toBeGreaterThanOrEqual(19);
      await until(() => behind.memories.embedded === behind.written(), 20_000);
    } finally {
      await behind.backlog.stop();
    }
  });

  it('keeps to its share under writes that need less, however long the backlog an overload left', async () => {
    // 2,000 items wait (an overload's leftovers), then a write every 40 ms (25 items a second, a
    // quarter of the model at 10 ms an item) for 40 s: the backlog stays at half a core, about 12
    // calls a second, rather than taking the whole model (25) while the writes go on, also long
    // after the burst began (the rule before gave it full rate 30 s into a burst).
    const recovering = setup({ yieldMs: 400, quietMs: 150, embedMs: 40, burstShare: 0.5, demandWindowMs: 500 });
    for (let i = 0; i < 2_000; i++) recovering.write();
    recovering.backlog.start();
    try {
      while (Date.now() - recovering.started < 40_000) {
        recovering.write();
        await elapse(40);
      }
      const calls = (from: number, to: number) => recovering.calls.filter((at) => at >= from && at < to).length;
      expect(calls(2_000, 8_000)).toBeGreaterThanOrEqual(50);
      expect(calls(2_000, 8_000)).toBeLessThanOrEqual(90);
      expect(calls(32_000, 38_000)).toBeGreaterThanOrEqual(50);
      expect(calls(32_000, 38_000)).toBeLessThanOrEqual(90);
      expect(recovering.memories.embedded).toBeLessThan(recovering.written());
    } finally {
      await recovering.backlog.stop();
    }
  });

  it("measures the writes' demand by the model's own time, not its calls' waits behind queries", async () => {
    // A write every 40 ms (25 items a second) at 10 ms of the model an item need a quarter of it.
    // Each call of 4 items also waits 200 ms behind queries (a cold start, or the end of an
    // overload): counted as the backlog's model time, that read as 1.5 cores, and the backlog took
    // the whole model just as the queries needed it.
    const queried = setup({
      yieldMs: 400,
      quietMs: 150,
      embedMs: 40,
      queueMs: 200,
      burstShare: 0.5,
      demandWindowMs: 500,
    });
    queried.backlog.start();
    try {
      await writeUntil(queried, 3_000, 40);
      const demand = await queried.writeDemand();
      expect(demand).toBeGreaterThan(0.15);
      expect(demand).toBeLessThan(0.4);
    } finally {
      await stopOnFakeClock(queried.backlog);
    }
  });

  it("measures the writes' demand by their texts' work, not by the long texts an overload left", async () => {
    // 2,000 long texts wait (an overload's chats' memories, 144 units of work each), and short
    // ones are written every 20 ms (21 units each) at 0.1 ms of the model a unit: the writes need
    // about a tenth of it. Counted per item at the long texts' time (14 ms), they read as 0.7, over
    // the share, and the backlog took the whole model while the requests came back.
    const leftovers = setup({ yieldMs: 400, quietMs: 150, msPerWork: 0.1, burstShare: 0.5, demandWindowMs: 500 });
    for (let i = 0; i < 2_000; i++) leftovers.memories.add(`long_${i}`, 't1', 'a long exchange '.repeat(40));
    leftovers.backlog.start();
    try {
      await writeUntil(leftovers, 3_000, 20);
      const demand = await leftovers.writeDemand();
      expect(demand).toBeGreaterThan(0.05);
      expect(demand).toBeLessThan(0.2);
    } finally {
      await stopOnFakeClock(leftovers.backlog);
    }
  });

  it("counts the model's time toward its share, not the claim's round trip", async () => {
    // Claims of 100 ms, model calls of 40 ms: at half a core the backlog rests 40 ms after each
    // call, so a batch goes every 180 ms, about 11 in the 2 s past the bound. Counting the claim as
    // the model's time made it rest 140 ms: a batch every 280 ms, about 7.
    const slowClaim = setup({ yieldMs: 400, quietMs: 150, embedMs: 40, claimMs: 100, burstShare: 0.5 });
    slowClaim.backlog.start();
    try {
      const burstEnded = await writeUntil(slowClaim, 2_400);
      expect(slowClaim.calls.filter((at) => at < burstEnded).length).toBeGreaterThanOrEqual(10);
    } finally {
      await until(() => slowClaim.memories.embedded === slowClaim.written(), 60_000);
      await slowClaim.backlog.stop();
    }
  });

  it('does not wait with yieldMs 0, and a lone write waits only for the quiet time', async () => {
    const off = setup({ yieldMs: 0, quietMs: 10_000 });
    off.backlog.start();
    try {
      off.write();
      await until(() => off.memories.embedded === 1, 5_000);
    } finally {
      await off.backlog.stop();
    }
    const lone = setup({ yieldMs: 60_000, quietMs: 200 });
    lone.backlog.start();
    try {
      await elapse(100);
      const wroteAt = Date.now() - lone.started;
      lone.write();
      await until(() => lone.memories.embedded === 1, 5_000);
      expect(lone.calls[0] - wroteAt).toBeGreaterThanOrEqual(150);
    } finally {
      await lone.backlog.stop();
    }
  });

  it('stops promptly while it yields', async () => {
    const { backlog, write } = setup({ yieldMs: 60_000, quietMs: 60_000 });
    backlog.start();
    write();
    await elapse(50);
    const stopping = Date.now();
    await backlog.stop();
    expect(Date.now() - stopping).toBeLessThan(2_000);
  });
});

describe('embedding backlog claims', () => {
  it('looks waiting items up once for many batches, not once per batch', async () => {
    // No idle polls during the test: every look-up is the drain's own.
    const { memories, calls, texts, backlog } = setup({ yieldMs: 0, quietMs: 100, idlePollMs: 60_000 });
    for (let n = 0; n < 100; n++) memories.add(`mem_${n}`);
    backlog.start();
    try {
      await until(() => memories.embedded === 100, 10_000);
      // 25 batches of 4 from one look-up of many candidates, and the look-up that found none.
      expect(calls).toHaveLength(25);
      expect(new Set(texts).size).toBe(100);
      expect(memories.lookups.length).toBeLessThanOrEqual(2);
      expect(memories.lookups[0]).toBe(CANDIDATES_PER_LOOKUP);
      expect(await memories.countPending()).toBe(0);
    } finally {
      await backlog.stop();
    }
  });

  it('skips candidates another replica took after the look-up and goes on at once', async () => {
    const { memories, texts, backlog } = setup({ yieldMs: 0, quietMs: 100, idlePollMs: 60_000 });
    for (let n = 0; n < 40; n++) memories.add(`mem_${n}`);
    // Another replica claims the first two batches' items between the look-up and the claims.
    memories.afterLookup = (found) => {
      for (const { id } of found.slice(0, 8)) memories.items.get(id)!.token = 'other replica';
      memories.afterLookup = () => undefined;
    };
    backlog.start();
    try {
      // The rest without waiting for the next idle poll (a minute away).
      await until(() => memories.embedded === 32, 5_000);
      expect(texts).toHaveLength(32);
      expect(texts).not.toContain('fact mem_0');
      expect(texts).not.toContain('fact mem_7');
      expect(memories.items.get('mem_0')!.token).toBe('other replica');
    } finally {
      await backlog.stop();
    }
  });
});

describe('embedding backlog between tenants', () => {
  it("embeds a quiet tenant's new item while a noisy tenant's long backlog still waits", async () => {
    // Each model call takes 20 ms: the noisy tenant's 400 items are 100 batches, 2 s at least.
    const { memories, backlog } = setup({ yieldMs: 0, quietMs: 100, embedMs: 20, idlePollMs: 100 });
    for (let n = 0; n < 400; n++) memories.add(`noisy_${n}`, 'ten_noisy', `a long exchange ${n} `.repeat(90));
    backlog.start();
    try {
      await until(() => memories.embedded >= 8, 10_000);
      memories.add('quiet_0', 'ten_quiet');
      backlog.kick([memories.items.get('quiet_0')!]);
      const added = Date.now();
      await until(() => memories.items.get('quiet_0')!.vector === true, 10_000);
      const waited = Date.now() - added;
      const noisyWaiting = [...memories.items.values()].filter((i) => i.tenantId === 'ten_noisy' && !i.vector);
      // Found by the next look-up for other tenants (every 100 ms), embedded in the batch after:
      // far from the noisy tenant's drain, which has most of its way still to go.
      expect(noisyWaiting.length).toBeGreaterThan(300);
      expect(waited).toBeLessThan(1_500);
      // That look-up left out the tenant whose candidates were in hand.
      expect(memories.exceptTenants).toContainEqual(['ten_noisy']);
    } finally {
      await backlog.stop();
    }
  });
});
