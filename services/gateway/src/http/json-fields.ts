import type { Caller } from './route.js';

/**
 * The contracts spell fields in camelCase (ts-proto), the REST API in snake_case (docs/api-guide.md).
 * This is the one place that renames between them: a route lists the fields it answers, and hands
 * what its schemas parsed to a backend, instead of spelling out each rename by hand.
 */

/** `created_at` -> `createdAt`, as ts-proto names a proto field. */
type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

/** `createdAt` -> `created_at`. */
type SnakeCase<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}`
  : S;

/** The snake_case names of a message's fields. */
type SnakeKeyOf<M> = { [K in keyof M & string]: SnakeCase<K> }[keyof M & string];

/** The message field a snake_case name stands for. */
type FieldOf<M, K extends string> = M[CamelCase<K> & keyof M];

const camelCase = (name: string) => name.replace(/_(.)/g, (_, c: string) => c.toUpperCase());

/**
 * The JSON of the named fields of a backend message, under their snake_case names; an optional
 * field the message leaves out is `null`, as the API reference documents absent values.
 */
export function jsonFields<M extends object, K extends SnakeKeyOf<M>>(
  message: M,
  names: readonly K[],
): { [P in K]: undefined extends FieldOf<M, P> ? Exclude<FieldOf<M, P>, undefined> | null : FieldOf<M, P> } {
  const fields = message as Record<string, unknown>;
  return Object.fromEntries(names.map((name) => [name, fields[camelCase(name)] ?? null])) as {
    [P in K]: undefined extends FieldOf<M, P> ? Exclude<FieldOf<M, P>, undefined> | null : FieldOf<M, P>;
  };
}

/** Parsed request fields (snake_case; their schema stripped unknown keys) as a backend request's fields. */
function camelFields<B extends object>(body: B): { [K in keyof B & string as CamelCase<K>]: B[K] } {
  return Object.fromEntries(Object.entries(body).map(([name, value]) => [camelCase(name), value])) as {
    [K in keyof B & string as CamelCase<K>]: B[K];
  };
}

/**
 * A backend request on the caller's tenant, from what a route's schemas parsed (path ids, query,
 * body): `{ agent_id, page, per_page }` becomes `{ tenantId, agentId, page, perPage }`.
 */
export function tenantRequest<F extends object>(
  caller: Pick<Caller, 'tenantId'>,
  fields: F,
): { tenantId: string } & { [K in keyof F & string as CamelCase<K>]: F[K] } {
  return { tenantId: caller.tenantId, ...camelFields(fields) };
}
