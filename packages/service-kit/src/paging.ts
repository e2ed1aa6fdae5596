export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/**
 * A list's page: `page` from 1, `perPage` DEFAULT_PAGE_SIZE by default and at most MAX_PAGE_SIZE
 * (docs/design.md section 3); 0 or less means the default. `skip` is where the page starts.
 */
export function paging(
  page: number | undefined,
  perPage: number | undefined,
): { page: number; perPage: number; skip: number } {
  const p = page && page > 0 ? Math.floor(page) : 1;
  const size = perPage && perPage > 0 ? Math.min(MAX_PAGE_SIZE, Math.floor(perPage)) : DEFAULT_PAGE_SIZE;
  return { page: p, perPage: size, skip: (p - 1) * size };
}
