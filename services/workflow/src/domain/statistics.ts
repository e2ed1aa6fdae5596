import type { WorkflowStatistics } from './workflow.types.js';

/** Counts of a workflow's executions by status, with the summed duration of finished ones. */
export interface StatusCounts {
  running: number;
  completed: number;
  failed: number;
  cancelled: number;
  finished_duration_ms: number;
}

/**
 * success_rate is completed / (completed + failed): a cancellation is the caller's decision, not an
 * outcome of the workflow, so it counts in total_runs but not in the rate or the mean duration.
 */
export function statisticsFrom(counts: StatusCounts): WorkflowStatistics {
  const finished = counts.completed + counts.failed;
  return {
    total_runs: counts.running + counts.completed + counts.failed + counts.cancelled,
    success_rate: finished === 0 ? 0 : Math.round((counts.completed / finished) * 10_000) / 10_000,
    avg_duration_ms: finished === 0 ? 0 : counts.finished_duration_ms / finished,
  };
}

/** `1240` -> `"1.24s"` (DESIGN.md section 7). */
export function formatDuration(ms: number): string {
  return `${(ms / 1000).toFixed(2)}s`;
}
