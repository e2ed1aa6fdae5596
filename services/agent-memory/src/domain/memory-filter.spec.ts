import { ValidationError } from '@agentplatform/service-kit';
import { matchesFilters, parseFilters } from './memory-filter.js';

describe('memory metadata filters', () => {
  const metadata = {
    category: 'billing',
    priority: 3,
    tags: ['refund', 'eu'],
    source: 'Release-Notes',
    updated: '2026-04-02',
    nested: { lang: 'en' },
  };
  const holds = (filters: Record<string, unknown>) => matchesFilters(metadata, parseFilters(filters));

  it.each([
    [{ category: 'billing' }, true],
    [{ category: { eq: 'support' } }, false],
    [{ category: { ne: 'support' } }, true],
    [{ missing: { ne: 'x' } }, true],
    [{ missing: 'x' }, false],
    [{ priority: { in: [1, 3] } }, true],
    [{ priority: { gt: 3 } }, false],
    [{ priority: { gte: 3, lte: 3 } }, true],
    [{ priority: { lt: 3 } }, false],
    [{ priority: { gt: '2' } }, false],
    [{ updated: { gte: '2026-04-01', lt: '2026-05-01' } }, true],
    [{ tags: { contains: 'eu' } }, true],
    [{ source: { contains: 'notes' } }, true],
    [{ 'nested.lang': 'en' }, true],
    [{ tags: ['refund', 'eu'] }, true],
  ])('%j -> %s', (filters, expected) => {
    expect(holds(filters)).toBe(expected);
  });

  it('names the wrong operator or operand in a validation error', () => {
    const attempt = () =>
      parseFilters({ priority: { between: [1, 2] }, source: { in: 'x' }, n: { gt: null }, t: { contains: {} }, e: {} });
    expect(attempt).toThrow(ValidationError);
    try {
      attempt();
    } catch (error) {
      expect((error as ValidationError).details.map((d) => d.field)).toEqual([
        'filters.priority.between',
        'filters.source.in',
        'filters.n.gt',
        'filters.t.contains',
        'filters.e',
      ]);
    }
  });
});
