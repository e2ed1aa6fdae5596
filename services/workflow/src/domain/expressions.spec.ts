import {
  ExpressionError,
  checkExpression,
  evaluate,
  evaluator,
  isInlineSafe,
  narrowScope,
  renderTemplate,
} from './expressions.js';

const scope = {
  input: { body: { amount: 150, name: 'Ada', price: 9.5, tags: ['a', 'b'] } },
  nodes: { fetch: { status: 200 } },
  previous: { total: 3, input: 'shadowed' },
};

describe('expressions (CEL)', () => {
  it('sees input, nodes.<id> and the previous output at top level', () => {
    expect(evaluate('input.body.amount > 100', scope)).toBe(true);
    expect(evaluate('nodes.fetch.status', scope)).toBe(200);
    expect(evaluate('total * 2', scope)).toBe(6);
  });

  it('never lets a previous field shadow input', () => {
    expect(evaluate('input.body.name', scope)).toBe('Ada');
  });

  it('treats whole JSON numbers as ints and others as doubles', () => {
    expect(evaluate('input.body.amount + 1', scope)).toBe(151);
    expect(evaluate('input.body.price * 2.0', scope)).toBe(19);
  });

  it('returns maps and lists as JSON', () => {
    expect(evaluate('{"n": input.body.name, "t": input.body.tags}', scope)).toEqual({ n: 'Ada', t: ['a', 'b'] });
  });

  it('reports a missing field as an ExpressionError', () => {
    expect(() => evaluate('input.body.missing > 1', scope)).toThrow(ExpressionError);
  });

  it('checks syntax', () => {
    expect(checkExpression('a +')).toMatch(/expecting/);
    expect(checkExpression('a + 1')).toBeUndefined();
  });

  it('renders templates: one part keeps its type, text parts interpolate', () => {
    const ev = evaluator(scope, ['input.body', 'input.body.name', 'total']);
    expect(renderTemplate('{{ input.body }}', ev)).toEqual(scope.input.body);
    expect(renderTemplate('Hello {{ input.body.name }}, {{ total }} items', ev)).toBe('Hello Ada, 3 items');
  });

  it('bounds statically only short expressions without macros or costly functions', () => {
    expect(isInlineSafe('input.body.amount > 100')).toBe(true);
    expect(isInlineSafe('input.count + 1 == 2 && "a" in input.tags && size(input.name) < 10')).toBe(true);
    expect(isInlineSafe('[1, 2].all(x, x > 0)')).toBe(false);
    expect(isInlineSafe('input.tags.exists(t, t == "a")')).toBe(false);
    expect(isInlineSafe('input.name.matches("^a+$")')).toBe(false);
    expect(
      isInlineSafe('input.a + input.a + input.a + input.a + input.a + input.a + input.a + input.a + input.a'),
    ).toBe(false);
    expect(isInlineSafe(`input.name == "${'a'.repeat(300)}"`)).toBe(false);
    expect(isInlineSafe('input.(')).toBe(false);
  });

  it('reads only what the expressions name from the scope', () => {
    const big = { input: { a: 1, b: 2 }, nodes: { x: { v: 1 }, y: { v: 2 } }, previous: { p: 1, q: 2 } };
    expect(narrowScope(big, ['nodes.x.v + p'])).toEqual({ input: {}, nodes: { x: { v: 1 } }, previous: { p: 1 } });
    expect(narrowScope(big, ['input.a', '[1].map(i, i + q)'])).toEqual({
      input: { a: 1, b: 2 },
      nodes: {},
      previous: { q: 2 },
    });
    expect(narrowScope(big, ['size(nodes) > 0']).nodes).toBe(big.nodes);
    expect(narrowScope(big, ['has(nodes.y.v)']).nodes).toEqual({ y: { v: 2 } });
    // And evaluates as with the whole scope.
    expect(evaluate('nodes.y.v + q', big)).toBe(4);
  });
});
