import { ValidationError } from '@agentplatform/service-kit';
import { parseJsonBody } from './json-body';

function refusal(text: string): ValidationError {
  try {
    parseJsonBody(text);
  } catch (error) {
    return error as ValidationError;
  }
  throw new Error('accepted');
}

const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

describe('JSON bodies', () => {
  it('accepts 64 levels and refuses 65, brackets inside strings not counted', () => {
    expect(parseJsonBody(nested(64))).toBeDefined();
    expect(parseJsonBody(`{"a":"${'['.repeat(100)}"}`)).toEqual({ a: '['.repeat(100) });
    expect(refusal(nested(65)).details).toEqual([
      { field: 'body', message: 'nests more than 64 levels of objects and arrays' },
    ]);
  });

  it('refuses a megabyte of nesting in linear time', () => {
    const started = performance.now();
    for (let i = 0; i < 10; i++) refusal(nested(512 * 1024));
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('names a refused key by its path, escaped or not, and its rule', () => {
    expect(refusal('{"a":[1,{"b":{"__proto__":{}}}]}').details).toEqual([
      { field: 'a[1].b.__proto__', message: 'is a reserved name (__proto__)' },
    ]);
    expect(refusal('{"x\\"y":{"\\u005f_proto__":1}}').details).toEqual([
      { field: 'x"y.__proto__', message: 'is a reserved name (__proto__)' },
    ]);
    expect(refusal('[{"a":1},{"t\\tb":1}]').details).toEqual([
      { field: '[1].t\\u0009b', message: 'must not contain a control character (U+0000 to U+001F)' },
    ]);
    // A value may hold anything; only keys are ruled.
    expect(parseJsonBody('{"a":"__proto__","b":"\\u0000"}')).toEqual({ a: '__proto__', b: '\u0000' });
  });

  it('answers malformed JSON as such, even with a refused key in it', () => {
    expect(refusal('{"__proto__":1').message).toBe('Malformed JSON body');
    expect(refusal('"a string"').message).toBe('Malformed JSON body');
    expect(parseJsonBody('  ')).toEqual({});
  });
});
