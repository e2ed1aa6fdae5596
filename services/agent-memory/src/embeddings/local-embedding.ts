import { isStopWord, terms, words } from '../domain/text.js';
import { normalize, type EmbeddingProvider } from './embedding-provider.js';

export const LOCAL_EMBEDDING_DIMENSION = 384;

/** FNV-1a, 32 bit, with a seed so index and sign come from independent hashes. */
function fnv1a(text: string, seed: number): number {
  let hash = 0x811c9dc5 ^ seed;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function add(vector: Float32Array, feature: string, weight: number): void {
  const index = fnv1a(feature, 0) % vector.length;
  const sign = fnv1a(feature, 0x9e3779b9) & 1 ? 1 : -1;
  vector[index] += sign * weight;
}

/**
 * The built-in offline embedding: signed feature hashing of stemmed words (weight 1), adjacent
 * word pairs (0.5) and character trigrams of every non-stop word (0.3 each, spread so a word's trigrams
 * weigh about as much as the word), into 384 dimensions, L2-normalised. It is real and
 * deterministic: near-duplicates, shared vocabulary, inflections and typos land close together.
 * It does not know synonyms or meaning ("car" and "automobile" are unrelated to it); configure
 * EMBEDDINGS_BASE_URL for semantic embeddings.
 */
export function localEmbedding(text: string, dimension = LOCAL_EMBEDDING_DIMENSION): Float32Array {
  const vector = new Float32Array(dimension);
  const stems = terms(text);
  for (const term of stems) add(vector, `w:${term}`, 1);
  for (let i = 1; i < stems.length; i++) add(vector, `b:${stems[i - 1]} ${stems[i]}`, 0.5);
  for (const word of words(text)) {
    if (isStopWord(word)) continue;
    const padded = `#${word}#`;
    if (padded.length < 4) continue;
    const weight = 0.3 / Math.sqrt(padded.length - 2);
    for (let i = 0; i + 3 <= padded.length; i++) add(vector, `c:${padded.slice(i, i + 3)}`, weight);
  }
  return normalize(vector);
}

export class LocalEmbeddingProvider implements EmbeddingProvider {
  readonly id = `local-hash-v1`;

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((text) => localEmbedding(text));
  }
}
