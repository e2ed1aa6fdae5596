import type { ServiceRuntime } from '@agentplatform/service-kit';

/**
 * Prunes old executions periodically (EXECUTION_RETENTION_DAYS, each workflow's newest
 * EXECUTION_KEEP_PER_WORKFLOW kept), in batches by date rather than by a TTL index: it works the same on every MongoDB-compatible server, and running it on every
 * replica is harmless (deletes are idempotent). Expired schedule claims go the same way (their TTL
 * index does it on MongoDB; the local stand-in has no TTL monitor). `prune` is the use case
 * (use-cases/prune-executions.ts), bound by main.ts: a job drives the rules, it does not import them.
 */
export function startRetentionJob(
  runtime: ServiceRuntime,
  prune: () => Promise<number>,
  retentionDays: number,
  intervalMs: number,
  claims?: { deleteExpired(now: Date): Promise<number> },
): void {
  let running: Promise<void> | undefined;
  const tick = () => {
    const pruned = Promise.all([prune(), claims?.deleteExpired(new Date())]);
    running = pruned
      .then(([deleted]) => deleted)
      .then(
        (deleted) => {
          if (deleted > 0) runtime.logger.info({ deleted, retention_days: retentionDays }, 'pruned old executions');
        },
        (error) => runtime.logger.warn({ err: error }, 'execution pruning failed'),
      );
  };
  const first = setTimeout(tick, Math.min(intervalMs, 5_000));
  first.unref();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  runtime.lifecycle.onShutdown('retention job', async () => {
    clearTimeout(first);
    clearInterval(timer);
    await running;
  });
}
