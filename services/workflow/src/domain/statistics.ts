import type { WorkflowStatistics } from './workflow.types.js';

/** Counts of a workflow's executions by status, with the summed duration of finished ones. */
export interface StatusCounts {
  queued: number;
  running: number;
  completed: number;
  failed: number;
  cancelled: number;
  finishedDurationMs: number;
}

/**
 * The success rate is completed / (completed + failed): a cancellation is the caller's decision, not an
 * outcome of the workflow, so it counts in the total but not in the rate or the mean duration.
 */
export function statisticsFrom(counts: StatusCounts): WorkflowStatistics {
  const finished = counts.completed + counts.failed;
  return {
    totalRuns: counts.queued + counts.running + counts.completed + counts.failed + counts.cancelled,
    successRate: finished === 0 ? 0 : Math.round((counts.completed / finished) * 10_000) / 10_000,
    avgDurationMs: finished === 0 ? 0 : counts.finishedDurationMs / finished,
  };
}

/** `1240` -> `"1.24s"` (docs/design.md section 7). */
export function formatDuration(ms: number): string {
  return `${(ms / 1000).toFixed(2)}s`;
}
