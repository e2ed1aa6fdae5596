import type { Logger } from '@agentplatform/service-kit';
import { LRUCache } from 'lru-cache';
import type { EmbeddingProvider } from '../embeddings/embedding-provider.js';

/** No vector: the search ranks lexically only (MemoryIndex scores an empty vector as 0). */
const NONE = new Float32Array(0);

/** What a search asks for its query: a vector, empty when there is none (lexical ranking only). */
export interface QueryVectors {
  vector(text: string): Promise<Float32Array>;
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

  constructor(
    private readonly embedder: EmbeddingProvider,
    maxEntries: number,
    private readonly logger: Logger,
  ) {
    this.cache = new LRUCache({ max: maxEntries });
  }

  async vector(text: string): Promise<Float32Array> {
    const cached = this.cache.get(text);
    if (cached) return cached;
    // A query does not wait seconds for a model still loading: it ranks lexically meanwhile.
    if (this.embedder.ready === false) return NONE;
    let flight = this.inFlight.get(text);
    if (!flight) {
      flight = this.embed(text).finally(() => this.inFlight.delete(text));
      this.inFlight.set(text, flight);
    }
    return flight;
  }

  private async embed(text: string): Promise<Float32Array> {
    try {
      const [vector] = await this.embedder.embed([text]);
      this.cache.set(text, vector);
      return vector;
    } catch (error) {
      this.logger.warn({ err: error, provider: this.embedder.id }, 'query embedding failed; lexical search only');
      return NONE;
    }
  }
}
