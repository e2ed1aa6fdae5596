import type { Lifecycle } from './lifecycle.js';
import type { Logger } from './logger.js';

/** The part of a MongoDB collection (driver or mongoose) that pruning uses. */
export interface PrunableCollection {
  find(
    filter: Record<string, unknown>,
    options: { projection: { _id: 1 }; sort: Record<string, 1 | -1>; limit: number },
  ): { toArray(): Promise<Array<{ _id: unknown }>> };
  deleteMany(filter: Record<string, unknown>): Promise<{ deletedCount: number }>;
}

export interface PruneOptions {
  /** The order of an index whose leading keys the filter bounds, so each batch is an index read. */
  sort: Record<string, 1 | -1>;
  batchSize: number;
  /** At most this many batches a run: a large backlog is worked off over several runs. */
  maxBatches?: number;
}

/**
 * Deletes what `filter` matches in batches of `batchSize`, the first by `sort`, and answers how
 * many went. Each batch is one bounded find of ids and one delete of those ids that still match
 * (a document changed in between stays), so no write holds the collection for long and every
 * replica may run it at once: deletes are idempotent.
 */
export async function pruneInBatches(
  collection: PrunableCollection,
  filter: Record<string, unknown>,
  { sort, batchSize, maxBatches = 100 }: PruneOptions,
): Promise<number> {
  let deleted = 0;
  for (let batch = 0; batch < maxBatches; batch += 1) {
    const page = await collection.find(filter, { projection: { _id: 1 }, sort, limit: batchSize }).toArray();
    if (page.length === 0) break;
    const result = await collection.deleteMany({ ...filter, _id: { $in: page.map((d) => d._id) } });
    deleted += result.deletedCount;
    if (page.length < batchSize) break;
  }
  return deleted;
}

/**
 * Runs `prune` every `intervalMs` (the first run a few seconds after start) on every replica, logs
 * what it removed, and waits for a run in progress on shutdown. A failed run is logged and the next
 * one tries again.
 */
export function schedulePruning(
  lifecycle: Lifecycle,
  logger: Logger,
  name: string,
  intervalMs: number,
  prune: () => Promise<number>,
): void {
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running) return;
    running = prune()
      .then(
        (deleted) => {
          if (deleted > 0) logger.info({ deleted, what: name }, 'pruned past retention');
        },
        (error) => logger.warn({ err: error, what: name }, 'pruning failed; will retry'),
      )
      .finally(() => {
        running = undefined;
      });
  };
  const first = setTimeout(tick, Math.min(intervalMs, 5_000));
  first.unref();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  lifecycle.onShutdown(`${name} pruning`, async () => {
    clearTimeout(first);
    clearInterval(timer);
    await running;
  });
}
