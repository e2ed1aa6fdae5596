import type { Tiktoken, TiktokenBPE } from 'js-tiktoken/lite' with { 'resolution-mode': 'import' };

/*
 * js-tiktoken is published as an ES module with CommonJS builds beside it; this service compiles
 * to CommonJS, so the CommonJS builds are loaded with require and typed from the ESM declarations.
 * The cl100k_base ranks ship inside the package: nothing is fetched at run time.
 */
const lite = require('js-tiktoken/lite') as { Tiktoken: new (ranks: TiktokenBPE) => Tiktoken };
const ranks = require('js-tiktoken/ranks/cl100k_base') as TiktokenBPE & { default?: TiktokenBPE };

let encoder: Tiktoken | undefined;

/** cl100k_base, the BPE of the GPT-3.5/GPT-4 family; built once, on first use. */
function encoding(): Tiktoken {
  encoder ??= new lite.Tiktoken(ranks.default ?? ranks);
  return encoder;
}

export function countTokens(text: string): number {
  return encoding().encode(text).length;
}

/** The first `max` tokens of a text (cut on a token boundary). */
export function truncateToTokens(text: string, max: number): string {
  const tokens = encoding().encode(text);
  return tokens.length <= max ? text : encoding().decode(tokens.slice(0, max));
}

/**
 * Prompt tokens of a chat request, counted the way OpenAI documents for its chat models: each
 * message costs its role and content plus 3 framing tokens, and the reply is primed with 3 more.
 */
export function countChatTokens(messages: ReadonlyArray<{ role: string; content: string }>): number {
  let total = 3;
  for (const message of messages) total += 3 + countTokens(message.role) + countTokens(message.content);
  return total;
}
