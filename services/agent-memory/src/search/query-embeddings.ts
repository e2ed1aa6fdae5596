import { shedError, type Logger, type Metrics } from '@agentplatform/service-kit';
import type { Counter } from 'prom-client';
import { LRUCache } from 'lru-cache';
import type { EmbeddingProvider } from '../embeddings/embedding-provider.js';

/** How long the model must stay behind (admit) before queries are refused: a burst it catches up with refuses none. */
export const BEHIND_GRACE_MS = 2_000;
/** For this long after a refusal, the model falling behind again refuses at once: an overload comes in waves. */
export const BEHIND_MEMORY_MS = 10_000;

/** When the model is behind, and what to do about it (admit). */
export interface QueryAdmission {
  /** The longest the oldest query may have waited for the model: past it, the model is behind. */
  maxWaitMs: number;
  /**
   * How long after its first query the model is warming: while it is behind then, new queries
   * rank lexically (as while it loads) instead of being refused.
   */
  warmUpMs: number;
  /** Where refusals are counted. */
  metrics?: Metrics;
}

/** No vector: the search ranks lexically only (MemoryIndex scores an empty vector as 0). */
const NONE = new Float32Array(0);

/** What a search asks for its query: a vector, empty when there is none (lexical ranking only). */
export interface QueryVectors {
  /** The vector of `tenantId`'s query (tenants' queries take turns at a model that queues them). */
  vector(text: string, tenantId: string): Promise<Float32Array>;
  /**
   * Refuses, before any work, a request whose query the model would not embed in time: throws
   * the shed error (503 with Retry-After) when the query is neither cached nor being embedded, the
   * model is behind (the oldest query waiting for it has waited longer than the bound, for
   * BEHIND_GRACE_MS on end or again within BEHIND_MEMORY_MS of the last refusal) and `tenantId`
   * holds at least its share of the queries waiting (as many as the average of the tenants that
   * have some): a tenant whose queries keep the model behind is refused, another tenant is not.
   * Never while the model warms (QueryAdmission.warmUpMs): its queries rank lexically instead.
   */
  admit(text: string, tenantId: string): void;
}

/**
 * Vectors of search queries, with a cache of recent ones: agents repeat queries (a chat's memory
 * lookup, a dashboard's saved search), and a hit costs nothing where the model costs milliseconds.
 * A failed embedding (endpoint down, model crashed) degrades the search to lexical, never fails it.
 */
export class QueryEmbeddings implements QueryVectors {
  private readonly cache: LRUCache<string, Float32Array>;
  /** Queries being embedded: concurrent searches of one text (a burst of one question) share it. */
  private readonly inFlight = new Map<string, Promise<Float32Array>>();
  /** Since when the oldest waiting query has waited past `maxWaitMs`, as admit last saw it. */
  private behindSince: number | undefined;
  private lastRefusal = -Infinity;
  /** When a query first found the model ready. */
  private readySince: number | undefined;
  private readonly refused: Counter | undefined;

  constructor(
    private readonly embedder: EmbeddingProvider,
    maxEntries: number,
    private readonly logger: Logger,
    private readonly admission: QueryAdmission = { maxWaitMs: Infinity, warmUpMs: 0 },
  ) {
    this.cache = new LRUCache({ max: maxEntries });
    this.refused = admission.metrics?.counter(
      'agent_memory_queries_shed_total',
      'Searches and chats refused before any work because the embedding model was behind',
    );
  }

  admit(text: string, tenantId: string): void {
    const now = Date.now();
    this.noteReady(now);
    if (!this.behind()) {
      this.behindSince = undefined;
      return;
    }
    this.behindSince ??= now;
    if (this.warming(now)) return; // the query ranks lexically (vector)
    if (now - this.behindSince < BEHIND_GRACE_MS && now - this.lastRefusal >= BEHIND_MEMORY_MS) return;
    const query = text.trim();
    if (this.cache.has(query) || this.inFlight.has(query) || this.embedder.ready === false) return;
    if (!this.holdsItsShare(tenantId)) return;
    if (now - this.lastRefusal >= BEHIND_MEMORY_MS) {
      this.logger.warn(
        { behind_ms: now - this.behindSince, max_wait_ms: this.admission.maxWaitMs },
        'embedding model behind: refusing the new queries of tenants holding their share of its queue',
      );
    }
    this.lastRefusal = now;
    this.refused?.inc();
    throw shedError('embedding model');
  }

  async vector(text: string, tenantId: string): Promise<Float32Array> {
    this.noteReady(Date.now());
    const cached = this.cache.get(text);
    if (cached) return cached;
    // A query does not wait seconds for a model still loading, nor for one that has fallen behind
    // while it warms: it ranks lexically meanwhile.
    if (this.embedder.ready === false) return NONE;
    let flight = this.inFlight.get(text);
    if (!flight && this.behind() && this.warming(Date.now())) return NONE;
    if (!flight) {
      flight = this.embed(text, tenantId).finally(() => this.inFlight.delete(text));
      this.inFlight.set(text, flight);
    }
    return flight;
  }

  /** Whether the oldest query waiting for the model has waited past the bound. */
  private behind(): boolean {
    return (this.embedder.queryWaitMs?.() ?? 0) > this.admission.maxWaitMs;
  }

  /**
   * Whether `tenantId` has queries waiting for the model, at least as many as the average of the
   * tenants that have some. A model that does not queue (no count) refuses every tenant alike.
   */
  private holdsItsShare(tenantId: string): boolean {
    const waiting = this.embedder.queriesWaiting?.(tenantId);
    if (!waiting) return true;
    return waiting.tenant > 0 && waiting.tenant * waiting.tenants >= waiting.total;
  }

  /** Counts the model's use from the first query that finds it ready. */
  private noteReady(now: number): void {
    if (this.readySince === undefined && this.embedder.ready !== false) this.readySince = now;
  }

  /** Whether the model is in its first `warmUpMs` of use (or not ready yet). */
  private warming(now: number): boolean {
    return this.readySince === undefined || now - this.readySince < this.admission.warmUpMs;
  }

  private async embed(text: string, tenantId: string): Promise<Float32Array> {
    try {
      const [vector] = await this.embedder.embed([text], { tenantId });
      this.cache.set(text, vector);
      return vector;
    } catch (error) {
      this.logger.warn({ err: error, provider: this.embedder.id }, 'query embedding failed; lexical search only');
      return NONE;
    }
  }
}
