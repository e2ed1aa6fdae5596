import type { UseCaseDeps } from './deps.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Executions one pruning batch deletes: small, so no delete holds the collection for long. */
const PRUNE_BATCH = 500;

/**
 * Deletes finished executions older than the retention period, but never a workflow's newest
 * `keepPerWorkflow` (DESIGN section 8); answers how many went.
 */
export async function pruneExecutions(
  deps: Pick<UseCaseDeps, 'executions'>,
  input: { retentionDays: number; keepPerWorkflow: number; now?: Date },
): Promise<number> {
  const now = input.now ?? new Date();
  return deps.executions.pruneFinishedBefore(new Date(now.getTime() - input.retentionDays * DAY_MS), {
    keepPerWorkflow: input.keepPerWorkflow,
    batchSize: PRUNE_BATCH,
  });
}
