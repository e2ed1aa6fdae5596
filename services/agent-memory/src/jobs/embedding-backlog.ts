import { randomUUID } from 'node:crypto';
import type { Logger, Metrics } from '@agentplatform/service-kit';
import { Counter, Gauge } from 'prom-client';
import type { Agent } from '../domain/agent.js';
import type { ClaimedItem, Embedding, MemoryItem, PendingItem, PendingScope } from '../domain/memory.js';
import type { EmbeddingProvider } from '../embeddings/embedding-provider.js';
import { modelWork } from '../embeddings/word-pieces.js';
import type { IndexChange } from '../search/memory-index-cache.js';
import { BurstPacer, type PacingOptions } from './burst-pacer.js';
import { FairCandidates, MAX_ITEM_COST } from './fair-candidates.js';

/** Where the backlog finds, claims and stores its work (EmbeddingBacklogRepository). */
export interface EmbeddingBacklogStore {
  openMissing(provider: string, now: Date): Promise<number>;
  findPending(limit: number, now: Date, scope?: PendingScope): Promise<PendingItem[]>;
  claim(candidates: PendingItem[], provider: string, token: string, leaseUntil: Date): Promise<ClaimedItem[]>;
  storeClaimed(token: string, vectors: Array<{ id: string; embedding: Embedding }>): Promise<MemoryItem[]>;
  releaseClaim(token: string, ids: string[]): Promise<void>;
  countPending(): Promise<number>;
}

/** The agents' memory versions, which every replica's search index follows. */
export interface MemoryVersions {
  bumpMemoryVersion(tenantId: string, agentId: string): Promise<Pick<Agent, 'memoryVersion'> | undefined>;
}

/** This replica's search indexes. */
export interface SearchIndexes {
  apply(tenantId: string, agentId: string, version: number, change: IndexChange): void;
  drop(tenantId: string, agentId: string): void;
}

export interface BacklogOptions extends PacingOptions {
  /** Items embedded per model call. */
  batchSize: number;
  /** How long a claimed batch is held before another replica may take it over. */
  leaseMs: number;
  /**
   * How often an idle replica looks for items written elsewhere (its own writes wake it at once),
   * and how often a busy one looks for tenants that started waiting since its last look-up.
   */
  idlePollMs: number;
}

/**
 * Items looked up at a time as candidates for the next batches (see claimAndEmbed). The look-up
 * reads the due entries (what waits, not what is stored) and is the backlog's one query that is
 * not by primary key; taking many candidates at a time keeps its cost per item small even where it
 * is a scan of the entries (the local stand-in).
 */
export const CANDIDATES_PER_LOOKUP = 512;

/**
 * Candidates held at most (about 100 bytes each): beyond it the longest tenant queues let go of
 * their ends (FairCandidates.trim), so many tenants with long backlogs cost bounded memory.
 */
const MAX_CANDIDATES_HELD = 8 * CANDIDATES_PER_LOOKUP;

/**
 * Most model work in one batch, in estimated word pieces (see itemCost): a batch of short texts
 * is `batchSize` items, one of long texts (chat-local's episodic memories, 128 word pieces) eight,
 * about 0.2 s of one core, so that an item that joins the next batch waits for a fraction of a
 * second of the model, not for sixteen long texts. The vectors of a batch are stored when all of it is embedded.
 */
export const BATCH_WORD_PIECES = 8 * MAX_ITEM_COST;

/** A claimed batch, embedded: what `store` needs, and how long the model took (for BurstPacer.pace). */
interface EmbeddedBatch {
  token: string;
  claimed: ClaimedItem[];
  vectors: Float32Array[];
  modelMs: number;
}

/**
 * Measures the model's time on the background calls that follow: the provider's own count where it
 * has one (its calls' time, not their waits behind queries, which are the queries' time), or else
 * the wall time (a remote endpoint).
 */
function startModelTime(embedder: EmbeddingProvider): () => number {
  const started = Date.now();
  const before = embedder.backgroundModelMs?.();
  return () => {
    const after = embedder.backgroundModelMs?.();
    return before === undefined || after === undefined ? Date.now() - started : after - before;
  };
}

/** The model's work of these items' texts (modelWork), the measure BurstPacer counts writes in. */
function workOf(items: ReadonlyArray<{ content: string }>): number {
  return items.reduce((sum, item) => sum + modelWork(item.content.length), 0);
}

/** How often the backlog's size is counted and logged while it drains. */
const PROGRESS_EVERY_MS = 5_000;

/**
 * Embeds memory items off the request path. An add stores the item without a vector (it is
 * lexically searchable at once) and wakes this loop, which claims items lacking a vector of the
 * current embedder in batches (a lease in the item, so replicas share the work and a crash only
 * delays a batch), embeds them, stores the vectors and applies them to the search index. Items
 * embedded by another embedder count as lacking one: switching the embedder re-embeds everything
 * in the background while search goes on (items without a current vector score lexically only).
 * The look-ups read the store's due entries, one per waiting item, never the items themselves: an
 * idle replica's poll costs what waits, not what the tenants keep. At start the store opens the
 * entries of items that lack a current vector and have none (a former embedder's items).
 *
 * Tenants share the model fairly: each batch is chosen among the candidates of every waiting
 * tenant by the model work each has had (see FairCandidates), and while candidates are in hand,
 * a look-up for the other tenants' items comes every `idlePollMs` (and at once after a look-up
 * that came back full), so one tenant's long backlog does not hide another's new items.
 */
export class EmbeddingBacklog {
  private wake: (() => void) | undefined;
  /** A kick that came while a batch ran: the next sleep returns at once. */
  private kicked = false;
  private stopped = false;
  private loop: Promise<void> | undefined;
  private readonly embedded: Counter;
  private readonly pendingGauge: Gauge;
  private lastProgress = 0;
  private doneSinceProgress = 0;
  /** Waits for this replica's bursts of writes, before a batch and after one. */
  private readonly pacer: BurstPacer;
  /** Items found waiting by the look-ups and not yet tried, per tenant. */
  private readonly candidates = new FairCandidates();
  /** When the last look-up of waiting items was made. */
  private lookedAt = 0;
  /** The last look-up came back full: more tenants than it found may be waiting. */
  private lookupFull = false;

  constructor(
    private readonly deps: {
      store: EmbeddingBacklogStore;
      agents: MemoryVersions;
      embedder: EmbeddingProvider;
      index: SearchIndexes;
      logger: Logger;
      metrics: Metrics;
    },
    private readonly options: BacklogOptions,
  ) {
    this.pacer = new BurstPacer(options);
    this.embedded = new Counter({
      name: 'agent_memory_embedded_total',
      help: 'Memory items given a vector by the embedding backlog',
      labelNames: ['provider'],
      registers: [deps.metrics.registry],
    });
    const pacer = this.pacer;
    new Gauge({
      name: 'agent_memory_embedding_write_demand',
      help: "The share of one core of the model that this replica's writes of the last 5 s need (over burstShare: the backlog works at full rate)",
      registers: [deps.metrics.registry],
      collect() {
        this.set(pacer.writeDemand);
      },
    });
    this.pendingGauge = new Gauge({
      name: 'agent_memory_embedding_backlog',
      help: 'Memory items (all replicas) waiting for a vector of the current embedder, as last counted',
      labelNames: ['provider'],
      registers: [deps.metrics.registry],
    });
  }

  start(): void {
    this.loop ??= this.run();
  }

  /**
   * A write on this replica left these items without a vector: work as soon as the writes pause
   * (at most `yieldMs` after the first of them) rather than at the next poll.
   */
  kick(items: ReadonlyArray<{ content: string }>): void {
    this.pacer.write(workOf(items));
    this.kicked = true;
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    this.pacer.stop();
    await this.loop;
  }

  /** Embeds one agent's waiting items now (consolidation compares vectors, so it needs them all). */
  async drainAgent(tenantId: string, agentId: string): Promise<void> {
    for (;;) {
      const done = await this.batch({ agent: { tenantId, agentId } });
      if (done === 0) return;
    }
  }

  /**
   * Claims and embeds batch after batch. A batch's vectors are stored (and published) while the
   * next batch is claimed and embedded, so the model does not sit idle through the store's round
   * trips; at most one store is in flight.
   */
  private async run(): Promise<void> {
    try {
      await this.deps.store.openMissing(this.deps.embedder.id, new Date());
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'could not open the backlog entries of items without a vector');
    }
    await this.progress(true);
    let storing: Promise<void> = Promise.resolve();
    while (!this.stopped) {
      await this.pacer.yieldToWrites();
      const claimedAt = Date.now();
      let embedded: EmbeddedBatch | undefined;
      try {
        embedded = await this.claimAndEmbed();
      } catch (error) {
        this.deps.logger.warn({ err: error }, 'embedding batch failed; retrying');
        await storing;
        await this.sleep(this.options.idlePollMs);
        continue;
      }
      await storing;
      if (!embedded) {
        // Caught up with every write made before this claim: the next write starts a new burst.
        this.pacer.caughtUp(claimedAt);
        if (Date.now() - this.lastProgress >= PROGRESS_EVERY_MS) await this.progress(false);
        await this.sleep(this.options.idlePollMs);
        continue;
      }
      const batch = embedded;
      storing = this.store(batch.token, batch.claimed, batch.vectors).then(
        () => {
          this.doneSinceProgress += batch.claimed.length;
          if (Date.now() - this.lastProgress >= PROGRESS_EVERY_MS) return this.progress(false);
        },
        (error: unknown) => {
          // The lease runs out and another batch (on any replica) takes the items again.
          this.deps.logger.warn({ err: error }, 'storing embedded batch failed; its items wait for their lease');
        },
      );
      await this.pacer.pace(batch.modelMs, workOf(batch.claimed));
    }
    await storing;
  }

  /** Claims, embeds and stores one batch; returns how many items got a vector. */
  private async batch(scope?: PendingScope): Promise<number> {
    const embedded = await this.claimAndEmbed(scope);
    if (!embedded) return 0;
    await this.store(embedded.token, embedded.claimed, embedded.vectors);
    return embedded.claimed.length;
  }

  /**
   * Claims a batch and embeds it; undefined when nothing waits. A failed embedding frees the claim.
   * The batch is taken fairly between tenants from candidates that look-ups found for many
   * batches; a candidate that another replica took or embedded since is skipped at the claim.
   * A look-up comes when the candidates run out, and while they last, every `idlePollMs` (or
   * right after one that came back full) for the tenants they do not include.
   */
  private async claimAndEmbed(scope?: PendingScope): Promise<EmbeddedBatch | undefined> {
    const { store, embedder } = this.deps;
    const token = randomUUID();
    const { batchSize, leaseMs } = this.options;
    let claimed: ClaimedItem[] = [];
    // At most one look-up per call: when all its candidates turn out taken, nothing waits now.
    let looked = false;
    while (claimed.length === 0) {
      let batch: PendingItem[];
      if (scope) {
        if (looked) return undefined;
        looked = true;
        batch = await store.findPending(batchSize, new Date(), scope);
      } else {
        if (!looked && this.lookupDue()) {
          looked = true;
          await this.lookUp();
        }
        batch = this.candidates.take(batchSize, BATCH_WORD_PIECES);
      }
      if (batch.length === 0) return undefined;
      claimed = await store.claim(batch, embedder.id, token, new Date(Date.now() + leaseMs));
    }
    try {
      const modelTime = startModelTime(embedder);
      const vectors = await embedder.embed(
        claimed.map((item) => item.content),
        { background: true },
      );
      return { token, claimed, vectors, modelMs: modelTime() };
    } catch (error) {
      const ids = claimed.map((item) => item.id);
      await store.releaseClaim(token, ids).catch(() => undefined);
      throw error;
    }
  }

  /** No candidates in hand, or tenants not among them may have started waiting since the last look-up. */
  private lookupDue(): boolean {
    return this.candidates.size === 0 || this.lookupFull || Date.now() - this.lookedAt >= this.options.idlePollMs;
  }

  /** Looks up waiting items of the tenants that have no candidates in hand. */
  private async lookUp(): Promise<void> {
    const found = await this.deps.store.findPending(CANDIDATES_PER_LOOKUP, new Date(), {
      exceptTenants: this.candidates.tenants(),
    });
    this.lookedAt = Date.now();
    this.lookupFull = found.length === CANDIDATES_PER_LOOKUP;
    this.candidates.add(found);
    this.candidates.trim(MAX_CANDIDATES_HELD);
  }

  /** Stores a claimed batch's vectors and publishes them to the search indexes. */
  private async store(token: string, claimed: ClaimedItem[], vectors: Float32Array[]): Promise<void> {
    const { store, embedder } = this.deps;
    const stored = await store.storeClaimed(
      token,
      claimed.map((item, n) => ({
        id: item.id,
        embedding: { provider: embedder.id, dimension: vectors[n].length, vector: vectors[n] },
      })),
    );
    await this.publish(claimed, stored);
    this.embedded.inc({ provider: embedder.id }, stored.length);
  }

  /** Bumps each agent's memory version so every replica's index picks the vectors up. */
  private async publish(claimed: ClaimedItem[], stored: MemoryItem[]) {
    const byAgent = new Map<string, { tenantId: string; agentId: string; items: typeof stored }>();
    for (const item of claimed) {
      const key = `${item.tenantId}/${item.agentId}`;
      if (!byAgent.has(key)) byAgent.set(key, { tenantId: item.tenantId, agentId: item.agentId, items: [] });
    }
    for (const item of stored) byAgent.get(`${item.tenantId}/${item.agentId}`)?.items.push(item);
    for (const { tenantId, agentId, items } of byAgent.values()) {
      if (items.length === 0) continue;
      const bumped = await this.deps.agents.bumpMemoryVersion(tenantId, agentId);
      if (bumped === undefined) this.deps.index.drop(tenantId, agentId);
      else this.deps.index.apply(tenantId, agentId, bumped.memoryVersion, { upsert: items });
    }
  }

  /** Counts the backlog (a metric), and logs it when there is something to say. */
  private async progress(first: boolean): Promise<void> {
    this.lastProgress = Date.now();
    try {
      const remaining = await this.deps.store.countPending();
      this.pendingGauge.set({ provider: this.deps.embedder.id }, remaining);
      if ((first && remaining > 0) || this.doneSinceProgress > 0) {
        this.deps.logger.info(
          { provider: this.deps.embedder.id, embedded: this.doneSinceProgress, remaining },
          first ? 'embedding backlog: items waiting for a vector' : 'embedding backlog progress',
        );
      }
      this.doneSinceProgress = 0;
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'could not count the embedding backlog');
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped || this.kicked) {
      this.kicked = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = undefined;
        this.kicked = false;
        done();
      };
    });
  }
}
