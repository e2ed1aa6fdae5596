import { backoffDelay, startRepeatingJob, type ServiceRuntime } from '@agentplatform/service-kit';

/** The longest pause between passes while identity keeps failing. */
const MAX_BACKOFF_MS = 60_000;

/**
 * Settles the runs whose credit is not confirmed, until identity confirms each (docs/design.md
 * section 5: no run is left uncharged). A pass every `intervalMs`; a pass that meets a failure
 * backs off (doubling, up to a minute) so an unreachable or overloaded identity is not pressed
 * harder, and a full page goes on at once. Every replica may run it: settles are idempotent.
 * `settle` is the use case (use-cases/settle-run-credits.ts), bound by main.ts.
 */
export function startCreditSettleJob(
  runtime: ServiceRuntime,
  settle: (batch: number) => Promise<{ settled: number; failed: boolean }>,
  intervalMs: number,
  batch = 100,
): void {
  let failures = 0;
  const backoff = () => backoffDelay(failures - 1, { baseMs: intervalMs, maxMs: MAX_BACKOFF_MS, jitter: 0.25 });
  startRepeatingJob(
    runtime.lifecycle,
    'credit settle job',
    () => settle(batch),
    (outcome) => {
      if ('error' in outcome) {
        failures++;
        runtime.logger.warn({ err: outcome.error }, 'run credit settle pass failed');
        return backoff();
      }
      const { settled, failed } = outcome.value;
      if (settled > 0) runtime.logger.info({ settled }, 'settled pending run credits');
      failures = failed ? failures + 1 : 0;
      if (failed) return backoff();
      return settled === batch ? 0 : intervalMs;
    },
    intervalMs,
  );
}
