/**
 * all-MiniLM-L6-v2 was trained on sequences of at most 128 word pieces (its model card); longer
 * texts are cut there. Cutting at 256 (sentence-transformers' default for it) made a long text
 * cost three times as much (104 against 35 ms of one core, bench/model-rss.js): on two cores, a
 * chat's episodic memory then cost more model time than the rest of its turn.
 */
export const MAX_TOKENS = 128;

/**
 * A text's word pieces, estimated from its length without the tokenizer (which runs in the model's
 * worker): about four characters each, plus the two the model adds to every text, at most
 * MAX_TOKENS. The model's time per text grows with its word pieces.
 */
export function estimatedWordPieces(length: number): number {
  return Math.min(MAX_TOKENS, Math.ceil(length / 4) + 2);
}
