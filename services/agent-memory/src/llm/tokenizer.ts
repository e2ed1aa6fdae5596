import type { Tiktoken, TiktokenBPE } from 'js-tiktoken/lite' with { 'resolution-mode': 'import' };
import { LRUCache } from 'lru-cache';

/*
 * js-tiktoken is published as an ES module with CommonJS builds beside it; this service compiles
 * to CommonJS, so the CommonJS builds are loaded with require and typed from the ESM declarations.
 * The cl100k_base ranks ship inside the package: nothing is fetched at run time.
 */
const lite = require('js-tiktoken/lite') as { Tiktoken: new (ranks: TiktokenBPE) => Tiktoken };
const ranks = require('js-tiktoken/ranks/cl100k_base') as TiktokenBPE & { default?: TiktokenBPE };
const bpe: TiktokenBPE = ranks.default ?? ranks;

let encoder: Tiktoken | undefined;

/** cl100k_base, the BPE of the GPT-3.5/GPT-4 family; built once (`prepareTokenizer`). */
function encoding(): Tiktoken {
  encoder ??= new lite.Tiktoken(bpe);
  return encoder;
}

/**
 * Builds cl100k_base now: about 0.7 s of CPU (100,000 ranks parsed), which on first use would
 * stall the event loop under the first chats, while every call in flight waits. The service
 * calls it before it serves.
 */
export function prepareTokenizer(): void {
  encoding();
}

/*
 * Counting is exact and cheap: the BPE splits a text into pieces with cl100k_base's pattern and
 * merges bytes only within a piece, so a text's count is the sum of its pieces' counts, and the
 * pieces of natural language (words with their leading space, punctuation) repeat all the time.
 * Each distinct piece is encoded once and its count remembered; the library's encode, which
 * builds its regular expressions and a byte array per piece on every call, cost a chat about a
 * millisecond per prompt counted. A piece encoded alone is the same piece: the pattern's only
 * lookahead, `\s+(?!\S)`, is also satisfied at the end of the piece.
 */
const PIECES = new RegExp(bpe.pat_str, 'gu');
/** Distinct pieces remembered, the least recently used dropped first (a hostile text only costs time). */
const MAX_PIECES = 50_000;
/** Longer pieces (long runs of symbols or spaces) rarely repeat: counted, not remembered. */
const MAX_PIECE_CHARS = 32;
const pieceCounts = new LRUCache<string, number>({ max: MAX_PIECES });

function pieceTokens(piece: string): number {
  let count = pieceCounts.get(piece);
  if (count !== undefined) return count;
  // Special tokens (`<|endoftext|>`) in a user's text are ordinary text, as a provider counts them.
  count = encoding().encode(piece, [], []).length;
  if (piece.length <= MAX_PIECE_CHARS) pieceCounts.set(piece, count);
  return count;
}

function piecesTokens(text: string): number {
  let total = 0;
  for (const match of text.matchAll(PIECES)) total += pieceTokens(match[0]);
  return total;
}

/*
 * No piece of the split pattern spans a line break followed by a non-space character: a piece
 * that takes a newline ends with it (`\s*[\r\n]+`, a symbol run's `[\r\n]*`) or stops before it
 * (letters, digits, contractions), the only lookahead (`\s+(?!\S)`) is never reached in a
 * whitespace run that ends with a newline, and the pattern has no lookbehind. So a text's count
 * is the sum of its lines' counts, cut there, and the lines of prompts repeat from turn to turn
 * (the system prompt, the memories quoted in it and in the replies, the history): each distinct
 * line is counted once and remembered, instead of splitting the whole prompt on every turn.
 */
const MAX_LINES = 4_096;
/** Longer lines are counted piece by piece every time, not remembered. */
const MAX_LINE_CHARS = 2_000;
const lineCounts = new LRUCache<string, number>({ max: MAX_LINES });
const SPACE = /\s/u;

function lineTokens(line: string): number {
  if (line.length > MAX_LINE_CHARS) return piecesTokens(line);
  let count = lineCounts.get(line);
  if (count === undefined) {
    count = piecesTokens(line);
    lineCounts.set(line, count);
  }
  return count;
}

export function countTokens(text: string): number {
  let total = 0;
  let start = 0;
  for (let nl = text.indexOf('\n'); nl !== -1 && nl + 1 < text.length; nl = text.indexOf('\n', nl + 1)) {
    if (SPACE.test(text[nl + 1])) continue;
    total += lineTokens(text.slice(start, nl + 1));
    start = nl + 1;
  }
  return total + lineTokens(start === 0 ? text : text.slice(start));
}

/** The first `max` tokens of a text (cut on a token boundary), and how many tokens that is. */
export function truncateToTokens(text: string, max: number): { text: string; tokens: number; truncated: boolean } {
  const count = countTokens(text);
  if (count <= max) return { text, tokens: count, truncated: false };
  const cut = encoding().decode(encoding().encode(text, [], []).slice(0, max));
  // Counted again: a cut inside a character's bytes decodes to a replacement character.
  return { text: cut, tokens: countTokens(cut), truncated: true };
}

/**
 * A message's own tokens (role, content and 3 framing tokens), remembered per message object: a
 * turn counts its prompt to reserve credits, and the local responder counts the same messages
 * again for its usage. Messages are never changed once made.
 */
const messageCounts = new WeakMap<object, number>();

/**
 * Prompt tokens of a chat request, counted the way OpenAI documents for its chat models: each
 * message costs its role and content plus 3 framing tokens, and the reply is primed with 3 more.
 */
export function countChatTokens(messages: ReadonlyArray<{ role: string; content: string }>): number {
  let total = 3;
  for (const message of messages) {
    let own = messageCounts.get(message);
    if (own === undefined) {
      own = 3 + countTokens(message.role) + countTokens(message.content);
      messageCounts.set(message, own);
    }
    total += own;
  }
  return total;
}
