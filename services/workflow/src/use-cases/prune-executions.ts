import type { UseCaseDeps } from './deps.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Deletes finished executions older than the retention period; answers how many went. */
export async function pruneExecutions(
  deps: Pick<UseCaseDeps, 'executions'>,
  input: { retentionDays: number; now?: Date },
): Promise<number> {
  const now = input.now ?? new Date();
  return deps.executions.pruneFinishedBefore(new Date(now.getTime() - input.retentionDays * DAY_MS));
}
