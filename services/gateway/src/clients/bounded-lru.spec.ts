import { boundedLru } from './bounded-lru';

describe('boundedLru', () => {
  it('holds at most maxEntries, forgetting the least recently used first', () => {
    const cache = boundedLru<string, number>(3);
    for (const key of ['a', 'b', 'c']) cache.set(key, 1);
    cache.get('a');
    cache.set('d', 1);
    expect([...cache.keys()].sort()).toEqual(['a', 'c', 'd']);
    for (let i = 0; i < 100; i++) cache.set(`k${i}`, i);
    expect(cache.size).toBe(3);
    expect([...cache.keys()].sort()).toEqual(['k97', 'k98', 'k99']);
  });

  it('forgets an entry once its ttl has passed', async () => {
    const cache = boundedLru<string, true>(10, { ttl: 20 });
    cache.set('key', true);
    expect(cache.has('key')).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(cache.has('key')).toBe(false);
  });
});
