import type { ExecutionRepository } from '../persistence/execution.repository.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Deletes finished executions older than the retention period; answers how many went. */
export async function pruneExecutions(
  executions: ExecutionRepository,
  retentionDays: number,
  now = new Date(),
): Promise<number> {
  return executions.pruneFinishedBefore(new Date(now.getTime() - retentionDays * DAY_MS));
}
