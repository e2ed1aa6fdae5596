import { DestinationLimits, type RequestEnd } from './destination-limits';

const fast: RequestEnd = { answered: true, status: 200, durationMs: 5, saturated: true };

function limits() {
  return new DestinationLimits({ base: 8, max: 64, fastMs: 1_000 });
}

describe('DestinationLimits', () => {
  it('gives every destination the base share, and a fast healthy one that uses it all one slot more per answer', () => {
    const l = limits();
    expect(l.limitOf('fast:443')).toBe(8);
    for (let i = 0; i < 10; i += 1) l.ended('fast:443', fast);
    expect(l.limitOf('fast:443')).toBe(18);
    for (let i = 0; i < 1_000; i += 1) l.ended('fast:443', fast);
    expect(l.limitOf('fast:443')).toBe(64);
    expect(l.limitOf('other:443')).toBe(8);
  });

  it('does not grow a destination that does not use the slots it has', () => {
    const l = limits();
    for (let i = 0; i < 100; i += 1) l.ended('idle:443', { ...fast, saturated: false });
    expect(l.limitOf('idle:443')).toBe(8);
  });

  it.each([
    ['a timeout', { answered: false, durationMs: 10_000 }],
    ['a network error', { answered: false, durationMs: 3 }],
    ['a 5xx', { status: 503 }],
    ['a 429', { status: 429 }],
    ['a slow answer', { durationMs: 2_500 }],
  ])('halves what a destination earned on %s, never below the base', (_what, end) => {
    const l = limits();
    for (let i = 0; i < 40; i += 1) l.ended('h:1', fast);
    expect(l.limitOf('h:1')).toBe(48);
    l.ended('h:1', { ...fast, ...end });
    expect(l.limitOf('h:1')).toBe(24);
    for (let i = 0; i < 5; i += 1) l.ended('h:1', { ...fast, ...end });
    expect(l.limitOf('h:1')).toBe(8);
  });

  it('keeps a destination that hangs or fails from the start at the base share', () => {
    const l = limits();
    for (let i = 0; i < 50; i += 1) l.ended('hang:80', { answered: false, durationMs: 10_000, saturated: true });
    expect(l.limitOf('hang:80')).toBe(8);
  });

  it('counts a quick 4xx as a healthy answer: the receiver is fast, the request is what it refuses', () => {
    const l = limits();
    l.ended('h:1', { ...fast, status: 404 });
    expect(l.limitOf('h:1')).toBe(9);
  });
});
