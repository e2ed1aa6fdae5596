/** The queries waiting for a model: one tenant's, all of them, and how many tenants have some. */
export interface QueriesWaiting {
  tenant: number;
  total: number;
  tenants: number;
}

export interface EmbedOptions {
  /** A batch that may wait behind interactive work (a search's query). */
  background?: boolean;
  /** Whose interactive call this is: where calls queue, tenants take turns. */
  tenantId?: string;
}

/** Turns texts into vectors. One implementation per source; the service uses exactly one at a time. */
export interface EmbeddingProvider {
  /** Stored with every vector; vectors of different providers are never compared. */
  readonly id: string;
  embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]>;
  /**
   * How long the oldest interactive call (a query) has waited for the model, in ms; absent: calls
   * do not queue here (a remote endpoint).
   */
  queryWaitMs?(): number;
  /**
   * The interactive calls waiting for the model: `tenantId`'s, all of them, and how many tenants
   * have some; absent: calls do not queue here.
   */
  queriesWaiting?(tenantId: string): QueriesWaiting;
  /**
   * This process's model time on background calls so far, in ms (their waits behind queries not
   * counted); absent: the model's time is not measured here (a remote endpoint, or no model).
   */
  backgroundModelMs?(): number;
  /** False while the provider cannot answer yet (a model still loading); absent: always ready. */
  readonly ready?: boolean;
  close?(): Promise<void>;
}

/** Scales a vector to unit length in place (a zero vector stays zero). */
export function normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  if (sum === 0) return vector;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i] *= scale;
  return vector;
}

/** Dot product; for unit vectors, their cosine similarity. */
export function dot(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += a[i] * b[i];
  return sum;
}
