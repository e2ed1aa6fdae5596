import { TtlCache } from './ttl-cache.js';

describe('TtlCache', () => {
  it('shares one load between concurrent lookups and expires entries', async () => {
    const cache = new TtlCache<number>(50);
    let loads = 0;
    const load = async () => ++loads;
    expect(await Promise.all([cache.get('a', load), cache.get('a', load)])).toEqual([1, 1]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await cache.get('a', load)).toBe(2);
  });

  it('does not keep failures', async () => {
    const cache = new TtlCache<number>(10_000);
    await expect(cache.get('a', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.get('a', async () => 7)).toBe(7);
  });

  it('stays within its size bound', async () => {
    const cache = new TtlCache<number>(10_000, 2);
    await cache.get('a', async () => 1);
    await cache.get('b', async () => 2);
    await cache.get('c', async () => 3);
    expect(await cache.get('a', async () => 9)).toBe(9);
  });
});
