import { listingKey } from './backends.js';

describe('listingKey (which listings may share one answer)', () => {
  const listing = { tenantId: 'ten_a', page: 1, perPage: 20, type: undefined, status: undefined };

  it('is the same for the same tenant and query', () => {
    expect(listingKey({ ...listing })).toBe(listingKey({ ...listing }));
    expect(listingKey({ ...listing, type: 'support' })).toBe(listingKey({ ...listing, type: 'support' }));
  });

  it('differs with the tenant, the page, the page size or a filter', () => {
    const keys = [
      listing,
      { ...listing, tenantId: 'ten_b' },
      { ...listing, page: 2 },
      { ...listing, perPage: 21 },
      { ...listing, type: 'support' },
      { ...listing, status: 'active' },
      { ...listing, type: 'support', status: 'active' },
      { ...listing, type: 'sales' },
    ].map(listingKey);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('tells apart tenant ids that share a prefix', () => {
    expect(listingKey({ ...listing, tenantId: 'ten_a1' })).not.toBe(listingKey({ ...listing, tenantId: 'ten_a' }));
  });
});
