import { lazy } from './lazy';

describe('lazy', () => {
  it('makes the value on the first call only and returns the same value after', () => {
    let loads = 0;
    const value = lazy(() => ({ loaded: ++loads }));
    expect(loads).toBe(0);
    const first = value();
    expect(value()).toBe(first);
    expect(loads).toBe(1);
  });

  it('tries again after a load that threw', () => {
    let calls = 0;
    const value = lazy(() => {
      calls++;
      if (calls === 1) throw new Error('not yet');
      return 'ready';
    });
    expect(() => value()).toThrow('not yet');
    expect(value()).toBe('ready');
    expect(value()).toBe('ready');
    expect(calls).toBe(2);
  });
});
