import type { Connection } from './mongo.js';

/**
 * The shape of one database call: which fields its filter compares, and how it sorts. What decides
 * whether an index serves the call, with the values left out.
 */
export interface QueryShape {
  collection: string;
  command: string;
  /** Fields compared with a plain value or `$in`/`$eq`, in the filter's order. */
  equality: string[];
  /** Fields compared with any other operator (`$lte`, `$ne`, `$exists`...). */
  range: string[];
  /** Top-level `$or`/`$and`/`$nor`/`$expr`: the fields inside count as ranges. */
  logical: boolean;
  sort: string[];
}

/** An index as a schema or `listIndexes` declares it. */
export interface DeclaredIndex {
  key: Record<string, unknown>;
  unique?: boolean;
}

export interface IndexVerdict {
  shape: QueryShape;
  /** The index MongoDB can answer the call from (its keys), or undefined: a collection scan. */
  mongo?: string;
  /**
   * Whether the local stand-in (mongo-java-server) answers it from an index: it uses one only when
   * the filter names exactly the keys of a unique index (or only `_id`) with plain values (a single
   * key may also take `$in`), never for a range or a sort (docs/performance.md, "Queries and their
   * indexes").
   */
  standIn: boolean;
}

const EQUALITY_OPERATORS = new Set(['$in', '$eq']);

function isOperatorObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Date) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((k) => k.startsWith('$'));
}

function fieldsOf(filter: Record<string, unknown>, into: Set<string>): void {
  for (const [key, value] of Object.entries(filter)) {
    if (key.startsWith('$')) {
      for (const branch of Array.isArray(value) ? value : [])
        if (branch && typeof branch === 'object') fieldsOf(branch as Record<string, unknown>, into);
    } else into.add(key);
  }
}

/** The shape of a filter and a sort. */
export function queryShape(
  collection: string,
  command: string,
  filter: Record<string, unknown> | undefined,
  sort?: Record<string, unknown>,
): QueryShape {
  const shape: QueryShape = {
    collection,
    command,
    equality: [],
    range: [],
    logical: false,
    sort: Object.keys(sort ?? {}),
  };
  const nested = new Set<string>();
  for (const [key, value] of Object.entries(filter ?? {})) {
    if (key.startsWith('$')) {
      shape.logical = true;
      fieldsOf({ [key]: value }, nested);
    } else if (!isOperatorObject(value) || Object.keys(value).every((op) => EQUALITY_OPERATORS.has(op)))
      shape.equality.push(key);
    else shape.range.push(key);
  }
  for (const field of nested)
    if (!shape.equality.includes(field) && !shape.range.includes(field)) shape.range.push(field);
  return shape;
}

function plainOnly(filter: Record<string, unknown>): boolean {
  return Object.values(filter).every((v) => !isOperatorObject(v));
}

/**
 * Which index serves a call. MongoDB: an index whose first key the filter constrains (an index
 * scan with bounds, not a collection scan), `_id` always; one that also gives the sort is
 * preferred. The stand-in: as `IndexVerdict.standIn` says.
 */
export function servingIndex(
  shape: QueryShape,
  filter: Record<string, unknown> | undefined,
  indexes: readonly DeclaredIndex[],
): IndexVerdict {
  const constrained = new Set([...shape.equality, ...shape.range]);
  const all = [{ key: { _id: 1 }, unique: true }, ...indexes];
  const usable = all.filter((index) => constrained.has(Object.keys(index.key)[0]!));
  const sorted = usable.find((index) => {
    const keys = Object.keys(index.key).filter((k) => !shape.equality.includes(k));
    return shape.sort.every((field, i) => keys[i] === field);
  });
  const best = sorted ?? usable[0];
  const filterKeys = Object.keys(filter ?? {});
  const standIn =
    !shape.logical &&
    filterKeys.length > 0 &&
    all.some((index) => {
      const keys = Object.keys(index.key);
      if (!index.unique || keys.length !== filterKeys.length || !keys.every((k) => filterKeys.includes(k)))
        return false;
      if (keys.length > 1) return plainOnly(filter!);
      const value = filter![keys[0]!];
      return !isOperatorObject(value) || Object.keys(value).every((op) => op === '$in');
    });
  return { shape, mongo: best ? Object.keys(best.key).join(',') : undefined, standIn };
}

/** The filter and sort of a collection method's arguments, as mongoose passes them. */
function filterAndSort(
  command: string,
  args: unknown[],
): Array<{ filter: Record<string, unknown>; sort?: Record<string, unknown> }> {
  const [first, second, third] = args as [unknown, unknown, unknown];
  const options = (value: unknown) => (value ?? {}) as { sort?: Record<string, unknown> };
  switch (command) {
    case 'find':
    case 'findOne':
      return [{ filter: first as Record<string, unknown>, sort: options(second).sort }];
    case 'findOneAndUpdate':
    case 'findOneAndReplace':
      return [{ filter: first as Record<string, unknown>, sort: options(third).sort }];
    case 'findOneAndDelete':
      return [{ filter: first as Record<string, unknown>, sort: options(second).sort }];
    case 'updateOne':
    case 'updateMany':
    case 'replaceOne':
    case 'deleteOne':
    case 'deleteMany':
    case 'countDocuments':
      return [{ filter: (first ?? {}) as Record<string, unknown> }];
    case 'distinct':
      return [{ filter: (second ?? {}) as Record<string, unknown> }];
    case 'aggregate': {
      const pipeline = (first ?? []) as Array<Record<string, Record<string, unknown>>>;
      const match = pipeline[0]?.$match;
      const sort = pipeline.find((stage) => stage.$sort)?.$sort;
      return [{ filter: match ?? {}, sort }];
    }
    case 'bulkWrite':
      return ((first ?? []) as Array<Record<string, { filter?: Record<string, unknown> }>>).flatMap((op) => {
        const body = Object.values(op)[0];
        return body?.filter ? [{ filter: body.filter }] : [];
      });
    default:
      return [];
  }
}

/**
 * Records the shape of every filtered call made through a connection's collections (mongoose's
 * per-connection `debug` hook, which replaces the command counter's on that connection): for tests
 * that run a service's repositories against the stand-in and then check each shape they saw
 * against the collection's indexes.
 */
export function recordQueryShapes(
  connection: Connection,
): Array<{ shape: QueryShape; filter: Record<string, unknown> }> {
  const seen: Array<{ shape: QueryShape; filter: Record<string, unknown> }> = [];
  connection.set('debug', (collection: string, command: string, ...args: unknown[]) => {
    for (const { filter, sort } of filterAndSort(command, args))
      seen.push({ shape: queryShape(collection, command, filter, sort), filter });
  });
  return seen;
}

/** The indexes a connection's models declare for a collection (what `autoIndex` builds). */
export function declaredIndexes(connection: Connection, collection: string): DeclaredIndex[] {
  const model = Object.values(connection.models).find((m) => m.collection.collectionName === collection);
  if (!model) return [];
  return model.schema
    .indexes()
    .map(([key, options]) => ({ key: key as Record<string, unknown>, unique: Boolean(options?.unique) }));
}

/**
 * The distinct calls recorded, sorted, each as `collection.command(fields) -> MongoDB index`,
 * ending in ` (stand-in: index)` where the stand-in answers it from one: what a spec lists to
 * fail when a repeated query gains a call or loses its index.
 */
export function callVerdicts(
  connection: Connection,
  seen: ReadonlyArray<{ shape: QueryShape; filter: Record<string, unknown> }>,
): string[] {
  const calls = seen.map(({ shape, filter }) => {
    const verdict = servingIndex(shape, filter, declaredIndexes(connection, shape.collection));
    const fields = [...shape.equality, ...shape.range].join(',');
    return `${shape.collection}.${shape.command}(${fields}) -> ${verdict.mongo}${verdict.standIn ? ' (stand-in: index)' : ''}`;
  });
  return [...new Set(calls)].sort();
}
