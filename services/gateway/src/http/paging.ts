import { z } from 'zod';

/** The largest value of the contracts' int32 fields: a larger one would fail gRPC serialization. */
const INT32_MAX = 2_147_483_647;

/** An integer that fits an int32 field; anything else is a validation error naming the field. */
export const int32 = () =>
  z
    .number()
    .int()
    .min(-INT32_MAX - 1)
    .max(INT32_MAX);

/** `page` (from 1) and `per_page` (default 20, at most 100) of the paged lists (docs/design.md section 3). */
export const pageParams = {
  page: z.coerce.number().int().min(1).max(INT32_MAX).default(1),
  per_page: z.coerce.number().int().min(1).max(100).default(20),
};

/** `limit` (default 20, at most 100) of the lists that take one. */
export const limitParam = z.coerce.number().int().min(1).max(100).default(20);

/** The paging fields of a list answer (`total`, `page`, `per_page`), from a service's list reply. */
export const pageJson = (out: { total: number; page: number; perPage: number }) => ({
  total: out.total,
  page: out.page,
  per_page: out.perPage,
});

/** A paged list answer: its items as JSON, with `total`, `page` and `per_page`. */
export const itemsPage = <T, J>(
  out: { items: T[]; total: number; page: number; perPage: number },
  toJson: (item: T) => J,
) => ({
  items: out.items.map((item) => toJson(item)),
  ...pageJson(out),
});
