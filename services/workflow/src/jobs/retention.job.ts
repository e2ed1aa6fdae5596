import type { ServiceRuntime } from '@agentplatform/service-kit';
import type { ExecutionRepository } from '../persistence/execution.repository.js';
import type { ScheduleClaimRepository } from '../persistence/schedule-claim.repository.js';
import { pruneExecutions } from '../use-cases/prune-executions.js';

/**
 * Prunes old executions periodically (EXECUTION_RETENTION_DAYS, each workflow's newest
 * EXECUTION_KEEP_PER_WORKFLOW kept), in batches by date rather than by a TTL index: it works the same on every MongoDB-compatible server, and running it on every
 * replica is harmless (deletes are idempotent). Expired schedule claims go the same way (their TTL
 * index does it on MongoDB; the local stand-in has no TTL monitor).
 */
export function startRetentionJob(
  runtime: ServiceRuntime,
  executions: ExecutionRepository,
  retention: { retentionDays: number; keepPerWorkflow: number },
  intervalMs: number,
  claims?: ScheduleClaimRepository,
): void {
  let running: Promise<void> | undefined;
  const tick = () => {
    const pruned = Promise.all([pruneExecutions({ executions }, retention), claims?.deleteExpired(new Date())]);
    running = pruned
      .then(([deleted]) => deleted)
      .then(
        (deleted) => {
          if (deleted > 0)
            runtime.logger.info({ deleted, retention_days: retention.retentionDays }, 'pruned old executions');
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
