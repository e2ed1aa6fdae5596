import type { ServiceRuntime } from '@agentplatform/service-kit';
import type { ExecutionRepository } from '../persistence/execution.repository.js';
import { pruneExecutions } from '../use-cases/prune-executions.js';

/**
 * Prunes old executions periodically (EXECUTION_RETENTION_DAYS). A plain deleteMany by date rather
 * than a TTL index: it works the same on every MongoDB-compatible server, and running it on every
 * replica is harmless (deletes are idempotent).
 */
export function startRetentionJob(
  runtime: ServiceRuntime,
  executions: ExecutionRepository,
  retentionDays: number,
  intervalMs: number,
): void {
  let running: Promise<void> | undefined;
  const tick = () => {
    running = pruneExecutions(executions, retentionDays).then(
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
