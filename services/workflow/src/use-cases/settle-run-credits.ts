import { DomainError } from '@agentplatform/service-kit';
import type { ExecutionStore, UseCaseDeps } from './deps.js';

type Deps = Pick<UseCaseDeps, 'credits' | 'logger'> & {
  executions: Pick<ExecutionStore, 'pendingCredits' | 'markCredited'>;
};

/** Identity could not answer (unreachable, shed, timed out): worth another try later. */
function retryable(error: unknown): boolean {
  return !(error instanceof DomainError) || ['service_unavailable', 'internal_error'].includes(error.code);
}

/**
 * Charges a stored run's credit (docs/design.md section 5). The run was stored marked as not
 * settled; the mark is removed once identity confirms. False when identity could not be asked:
 * the mark stays and `settlePendingRunCredits` tries again. A settle is idempotent by the run's
 * operation id, so a repeat never charges twice.
 */
export async function settleRunCredit(deps: Deps, run: { tenantId: string; id: string }): Promise<boolean> {
  try {
    await deps.credits.settleRun(run.tenantId, run.id);
  } catch (error) {
    if (retryable(error)) {
      deps.logger.warn({ err: error, execution_id: run.id }, 'run credit not settled yet; the settle job retries');
      return false;
    }
    // Identity refused it for good (no reservation under the run's id): retrying cannot help.
    deps.logger.error({ err: error, execution_id: run.id }, 'run credit settle refused');
  }
  await deps.executions.markCredited(run.id);
  return true;
}

/**
 * One pass of the settle job: settles the runs whose settle has not been confirmed (identity
 * was unreachable or busy, or this process stopped in between), oldest first, a bounded page at
 * a time. Answers how many it settled and whether any is left for a later pass.
 */
export async function settlePendingRunCredits(deps: Deps, batch = 100): Promise<{ settled: number; failed: boolean }> {
  const runs = await deps.executions.pendingCredits(batch);
  const settled = await Promise.all(runs.map((run) => settleRunCredit(deps, run)));
  return { settled: settled.filter(Boolean).length, failed: settled.includes(false) };
}
