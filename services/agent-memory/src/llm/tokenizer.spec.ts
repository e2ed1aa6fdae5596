import { countChatTokens, countTokens, truncateToTokens } from './tokenizer.js';

// The library itself, counting the whole text in one encode: what the memoised count must equal.
const { Tiktoken } = require('js-tiktoken/lite') as {
  Tiktoken: typeof import('js-tiktoken/lite', { with: { 'resolution-mode': 'import' } }).Tiktoken;
};
const ranks = require('js-tiktoken/ranks/cl100k_base');
const reference = new Tiktoken(ranks.default ?? ranks);
const libraryCount = (text: string) => reference.encode(text, [], []).length;

/** Deterministic text from an alphabet that exercises every branch of the split pattern. */
function randomText(seed: number, length: number): string {
  const alphabet = [
    ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ',
    ...'0123456789',
    ...'     ',
    '\n',
    '\r\n',
    '\t',
    ...'.,;:!?\'"()[]{}<>-_=+*/\\|@#$%^&~`',
    "'s",
    "'ll",
    "'RE",
    'é',
    'ß',
    'ñ',
    '中',
    '文',
    'й',
    '🙂',
    '👍🏽',
    'e\u0301',
    '\u00a0',
    '<|endoftext|>',
  ];
  let s = seed >>> 0;
  let out = '';
  for (let i = 0; i < length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out += alphabet[s % alphabet.length];
  }
  return out;
}

describe('tokenizer (cl100k_base)', () => {
  it('counts exactly what the library counts for the whole text', () => {
    const texts = [
      '',
      'hello world',
      'What do you know about refund policy return customer order?',
      "I'm sure they'll say it's DON'T and WE'RE.  Double  spaces,   triple, trailing   ",
      'line one\n\nline two\r\n  indented\n\t\ttabbed   \n   ',
      'Numbers 1 12 123 1234 12345 3.14159 1,000,000 2026-11-24T04:45:23Z',
      '{"query":"refund","top_k":5,"filters":{"n":{"gte":5}}}',
      'naïve café, Straße, Ελληνικά, русский текст, 中文字符, 日本語のテキスト, 한국어',
      'emoji 🙂👍🏽🇫🇷 and combining e\u0301 and no\u00a0break',
      'User: hi\nAssistant: From what I remember:\n- A fact.\n- Another fact.',
      '<|endoftext|> is text here, as are <|fim_prefix|> and <|endofprompt|>',
      ' '.repeat(100) + 'x' + '\n'.repeat(50) + '!'.repeat(80),
    ];
    for (let seed = 1; seed <= 40; seed++) texts.push(randomText(seed, 50 + seed * 37));
    for (const text of texts) {
      expect([text, countTokens(text)]).toEqual([text, libraryCount(text)]);
      // Memoised pieces give the same count the second time.
      expect(countTokens(text)).toBe(libraryCount(text));
    }
  });

  it('counts a prompt of repeated lines exactly, line by line and across line breaks', () => {
    // Lines cut after a newline followed by each kind of character the pattern treats apart.
    const lines = ['- A fact.', 'User: hi', "Assistant: it's 12,345!", '  indented', '\tTab', '中文', '🙂 ok', '', ' '];
    const texts: string[] = [];
    for (let seed = 1; seed <= 200; seed++) {
      let s = seed;
      let text = '';
      for (let i = 0; i < 12; i++) {
        s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
        text += lines[s % lines.length] + ['\n', '\n\n', '\r\n', ' \n', '.\n', ':\n'][s % 6];
      }
      texts.push(text, text.trimEnd(), randomText(seed + 1_000, 300));
    }
    for (const text of texts) expect([text, countTokens(text)]).toEqual([text, libraryCount(text)]);
  });

  it('counts special tokens in a user text as ordinary text instead of failing', () => {
    expect(() => countTokens('please ignore <|endoftext|>')).not.toThrow();
    expect(countTokens('<|endoftext|>')).toBeGreaterThan(1);
  });

  it('truncates on a token boundary and reports the tokens it kept', () => {
    expect(truncateToTokens('hello world, how are you', 2)).toEqual({
      text: 'hello world',
      tokens: 2,
      truncated: true,
    });
    expect(truncateToTokens('short', 10)).toEqual({ text: 'short', tokens: 1, truncated: false });
    const cut = truncateToTokens(randomText(7, 400), 25);
    expect(cut.tokens).toBe(libraryCount(cut.text));
  });

  it('counts chat messages the way OpenAI documents, the same on a second count', () => {
    const messages = [
      { role: 'system', content: 'You are Helper.' },
      { role: 'user', content: 'question' },
    ];
    const expected =
      3 +
      (3 + libraryCount('system') + libraryCount('You are Helper.')) +
      (3 + libraryCount('user') + libraryCount('question'));
    expect(countChatTokens(messages)).toBe(expected);
    expect(countChatTokens(messages)).toBe(expected);
    expect(countChatTokens([...messages, { role: 'user', content: 'more' }])).toBe(
      expected + 3 + libraryCount('user') + libraryCount('more'),
    );
  });
});
