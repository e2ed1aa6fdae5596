import { RevocableCache } from './revocable-cache.js';

describe('RevocableCache', () => {
  it('shares one load between concurrent lookups and expires entries', async () => {
    const cache = new RevocableCache<number>(50);
    let loads = 0;
    const load = async () => ++loads;
    expect(await Promise.all([cache.get('a', load), cache.get('a', load)])).toEqual([1, 1]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await cache.get('a', load)).toBe(2);
  });

  it('does not keep failures', async () => {
    const cache = new RevocableCache<number>(10_000);
    await expect(cache.get('a', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.get('a', async () => 7)).toBe(7);
  });

  it('stays within its size bound', async () => {
    const cache = new RevocableCache<number>(10_000, 2);
    await cache.get('a', async () => 1);
    await cache.get('b', async () => 2);
    await cache.get('c', async () => 3);
    expect(await cache.get('a', async () => 9)).toBe(9);
  });

  it('drops matching values on a revocation and never keeps a load that was in flight', async () => {
    const cache = new RevocableCache<{ id: string }>(10_000);
    await cache.get('a', async () => ({ id: 'key_1' }));
    await cache.get('b', async () => ({ id: 'key_2' }));
    let release!: (value: { id: string }) => void;
    const inFlight = cache.get('c', () => new Promise((resolve) => (release = resolve)));
    cache.deleteWhere((value) => value.id === 'key_1');
    release({ id: 'key_3' });
    expect(await inFlight).toEqual({ id: 'key_3' });
    expect(cache.has('a')).toBe(false);
    expect(cache.has('b')).toBe(true);
    // The load began before the revocation, so it may have read the revoked state: not kept.
    expect(cache.has('c')).toBe(false);
  });

  it('does not keep a load whose key was deleted while it ran', async () => {
    const cache = new RevocableCache<number>(10_000);
    let release!: (value: number) => void;
    const inFlight = cache.get('a', () => new Promise((resolve) => (release = resolve)));
    cache.delete('a');
    release(1);
    expect(await inFlight).toBe(1);
    expect(cache.has('a')).toBe(false);
  });

  it('keeps nothing with a time to live of 0', async () => {
    const cache = new RevocableCache<number>(0);
    let loads = 0;
    await cache.get('a', async () => ++loads);
    expect(await cache.get('a', async () => ++loads)).toBe(2);
  });

  it('keeps nothing while disabled', async () => {
    const cache = new RevocableCache<number>(10_000);
    cache.enabled = false;
    let loads = 0;
    await cache.get('a', async () => ++loads);
    await cache.get('a', async () => ++loads);
    expect(loads).toBe(2);
    expect(cache.has('a')).toBe(false);
  });
});
