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

/**
 * What a run of the model costs besides its word pieces, in word pieces: the local model takes
 * about 4 ms of a core for a short text (about 12 pieces) and 22 ms for one of 128, about 2.5 ms
 * a run plus 0.15 ms a piece.
 */
const RUN_PIECES = 16;

/**
 * A text's model time, in word pieces' worth (estimatedWordPieces and the run's own cost): a
 * measure in which texts of any mix of lengths compare, so that the time measured on some texts
 * says what others need.
 */
export function modelWork(length: number): number {
  return estimatedWordPieces(length) + RUN_PIECES;
}
