import { childExecutionId } from './run-child.js';

describe('childExecutionId', () => {
  it('is stable for the same parent, node, attempt and item, and differs otherwise', () => {
    const id = childExecutionId('exe_01PARENT', 'each', 1, 7);
    expect(id).toMatch(/^exe_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(childExecutionId('exe_01PARENT', 'each', 1, 7)).toBe(id);
    const others = [
      childExecutionId('exe_01PARENT', 'each', 1, 8),
      childExecutionId('exe_01PARENT', 'each', 2, 7),
      childExecutionId('exe_01PARENT', 'other', 1, 7),
      childExecutionId('exe_01OTHER', 'each', 1, 7),
    ];
    expect(new Set([id, ...others]).size).toBe(5);
  });
});
