/**
 * Text normalisation shared by the lexical index and the local embedding: Unicode-aware word
 * split, lower case, English stop words dropped, a light suffix stemmer so "prefers" meets
 * "preferred". Deliberately small: it only has to make BM25 and hashed features line up.
 */
const STOP_WORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it its ' +
    'me my no not of on or our she so than that the their them then there these they this to us was we were what when ' +
    'where which who whom why will with would you your yours about also just any some'
  ).split(' '),
);

const WORD = /[\p{L}\p{N}]+/gu;

/** Lower-cased words, stop words included (the local responder quotes text; the index does not). */
export function words(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().match(WORD) ?? [];
}

export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('ing') && word.length > 5) return word.slice(0, -3);
  if (word.endsWith('ed') && word.length > 4) return word.slice(0, -2);
  if (word.endsWith('es') && /(ch|sh|x|z)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us') && !word.endsWith('is'))
    return word.slice(0, -1);
  return word;
}

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

/** Index terms: stemmed words without stop words. */
export function terms(text: string): string[] {
  return words(text)
    .filter((w) => !STOP_WORDS.has(w))
    .map(stem);
}
