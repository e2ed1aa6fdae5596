import type { Connection, Model, mongo } from 'mongoose';
import { lazy } from './lazy.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';

/**
 * mongoose and its driver (about 400 modules) load when a process first connects, not with this
 * package: a module that only maps errors or pages (every use case's unit spec) never needs them.
 */
const mongoose = lazy(() => (require('mongoose') as typeof import('mongoose')).default);

export type { Connection } from 'mongoose';

export interface MongoOptions {
  uri: string;
  database: string;
  logger: Logger;
  /** Counts the commands the service sends, by collection (`mongo_commands_total`). */
  metrics?: Metrics;
}

/**
 * Connects to the service's own database. Each service owns exactly one database and never reads
 * another's. Index builds run at start-up (`autoIndex`), which is what a small team wants: schema
 * and indexes live together in the repository files.
 */
export async function connectMongo({ uri, database, logger, metrics }: MongoOptions): Promise<Connection> {
  const connection = mongoose().createConnection(uri, {
    dbName: database,
    serverSelectionTimeoutMS: 10_000,
    maxPoolSize: 50,
    autoIndex: true,
  });
  if (metrics) countCommands(connection, metrics);
  connection.on('disconnected', () => logger.warn({ database }, 'mongodb disconnected'));
  connection.on('reconnected', () => logger.info({ database }, 'mongodb reconnected'));
  await connection.asPromise();
  logger.info({ database }, 'mongodb connected');
  return connection;
}

/**
 * `mongo_commands_total{collection,command}`: one increment per call of a collection method
 * (`find`, `updateMany`, `bulkWrite`...) made through the connection's collections, which is every
 * repository's way to the database. A soak samples it to see which collection a load queries and
 * how often (docs/queries.md). Mongoose's per-connection `debug`
 * hook rather than the driver's command monitoring: monitoring decodes every reply a second time
 * to build its events, while this hook costs one counter increment per call. Calls on the raw
 * driver (`connection.db`, `getClient()`) are not counted.
 */
function countCommands(connection: Connection, metrics: Metrics): void {
  const commands = metrics.counter('mongo_commands_total', 'MongoDB commands sent, by collection and command', [
    'collection',
    'command',
  ]);
  connection.set('debug', (collection: string, command: string) => commands.inc({ collection, command }));
}

/** True while the connection can serve queries (the readiness probe's database half). */
export function isMongoReady(connection: Connection): boolean {
  return connection.readyState === mongoose().ConnectionStates.connected;
}

/**
 * Waits until every model compiled on the connection has built its indexes (`autoIndex` starts
 * the builds in the background when a model is compiled). A service serves only after this: the
 * local stand-in appends a new index to its collection outside the collection's lock, so a write
 * landing during the build failed with "Unknown error: null" (a ConcurrentModificationException
 * in mongo-java-server), and on MongoDB a query planned before its index exists scans.
 */
export async function buildIndexes(connection: Connection): Promise<void> {
  await Promise.all(Object.values(connection.models).map((model) => model.init()));
}

/**
 * Multi-document transactions need a replica set or sharded cluster. Production runs MongoDB as a
 * replica set; the local stand-in is a standalone server. Callers use this capability check to
 * choose a transaction or an ordered sequence of writes.
 */
export async function supportsTransactions(connection: Connection): Promise<boolean> {
  const db = connection.db;
  if (!db) return false;
  const hello = await db
    .admin()
    .command({ hello: 1 })
    .catch(() => db.admin().command({ isMaster: 1 }));
  return Boolean(hello.setName) || hello.msg === 'isdbgrid';
}

/** Duplicate-key errors are how unique indexes say "already there". */
export function isDuplicateKeyError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: number }).code === 11000;
}

/** A write error of one document in a batch, with the server's code (11000 for a duplicate key). */
export class DocumentWriteError extends Error {
  constructor(
    message: string,
    readonly code: number | undefined,
  ) {
    super(message);
    this.name = 'DocumentWriteError';
  }
}

/**
 * The collection under a model, typed by the documents stored in it, for the bulk and
 * compare-and-set writes mongoose's document API does not express. mongoose types
 * `model.collection` without its document type (so filters on string `_id`s needed casts); this
 * names the type once, where the model is. It is the model's own collection, so its calls are
 * counted in `mongo_commands_total` like every other (the raw driver's would not be).
 */
export function documentsOf<T extends mongo.Document>(model: Pick<Model<unknown>, 'collection'>): mongo.Collection<T>;
export function documentsOf(model: Pick<Model<unknown>, 'collection'>): mongo.Collection {
  return model.collection;
}

interface InsertManyTarget<D> {
  insertMany(docs: D[], options: { ordered: false }): Promise<unknown>;
}

/**
 * Inserts a batch in one round trip, unordered, and answers per document: undefined when stored,
 * or the error that document met (the others are stored regardless). For GroupCommit flushes.
 */
export async function insertEach<D>(collection: InsertManyTarget<D>, docs: D[]): Promise<Array<undefined | Error>> {
  try {
    await collection.insertMany(docs, { ordered: false });
    return docs.map(() => undefined);
  } catch (error) {
    return perOperationErrors(error, docs.length);
  }
}

/**
 * The outcome of each operation of an unordered bulk write that failed in part: undefined, or the
 * DocumentWriteError its index met. Rethrows an error that is not a bulk write's (a lost
 * connection: nothing is known per operation).
 */
export function perOperationErrors(error: unknown, count: number): Array<undefined | Error> {
  const writeErrors = (error as { writeErrors?: unknown }).writeErrors;
  if (writeErrors === undefined) throw error;
  const list = (Array.isArray(writeErrors) ? writeErrors : [writeErrors]) as Array<{
    index: number;
    code?: number;
    errmsg?: string;
  }>;
  const results: Array<undefined | Error> = Array.from({ length: count }, () => undefined);
  for (const e of list) results[e.index] = new DocumentWriteError(e.errmsg ?? 'write failed', e.code);
  return results;
}

/** How a list is paged, for `findPage`. */
export interface PageOptions {
  sort: Record<string, 1 | -1>;
  skip: number;
  limit: number;
  projection?: Record<string, 0 | 1>;
  /**
   * The list's total when the page does not end it, from a count kept elsewhere; by default a
   * `countDocuments`, which the local stand-in answers by scanning the collection (docs/queries.md).
   */
  count?: () => Promise<number>;
}

/**
 * One page of a tenant's list and the list's total, the read every list repository does. A page
 * that is not full ends the list, so then the total is known without counting (most lists fit one
 * page: one database call instead of two); otherwise the list is counted.
 */
export async function findPage<D>(
  model: Model<D>,
  filter: Record<string, unknown>,
  options: PageOptions,
): Promise<{ docs: D[]; total: number }> {
  const docs = await findSorted(model, filter, options);
  return { docs, total: await pageTotal(docs.length, options, () => model.countDocuments(filter)) };
}

/** One page of a list without its total (a page read another way fell back to the sorted query). */
export function findSorted<D>(
  model: Model<D>,
  filter: Record<string, unknown>,
  options: Pick<PageOptions, 'sort' | 'skip' | 'limit' | 'projection'>,
): Promise<D[]> {
  const { sort, skip, limit, projection } = options;
  return model.find(filter, projection).sort(sort).skip(skip).limit(limit).lean<D[]>().exec();
}

/** A list's total: known from a page that ends the list, else from `options.count` or `countAll`. */
export async function pageTotal(
  found: number,
  options: Pick<PageOptions, 'skip' | 'limit' | 'count'>,
  countAll: () => Promise<number>,
): Promise<number> {
  const { skip, limit } = options;
  if (found < limit && (found > 0 || skip === 0)) return skip + found;
  return (options.count ?? countAll)();
}
