import { backoffDelay, type ServiceRuntime } from '@agentplatform/service-kit';

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
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(tick, ms);
    timer.unref();
  };
  const tick = () => {
    running = settle(batch).then(
      ({ settled, failed }) => {
        if (settled > 0) runtime.logger.info({ settled }, 'settled pending run credits');
        failures = failed ? failures + 1 : 0;
        if (failed) schedule(backoffDelay(failures - 1, { baseMs: intervalMs, maxMs: MAX_BACKOFF_MS, jitter: 0.25 }));
        else schedule(settled === batch ? 0 : intervalMs);
      },
      (error) => {
        failures++;
        runtime.logger.warn({ err: error }, 'run credit settle pass failed');
        schedule(backoffDelay(failures - 1, { baseMs: intervalMs, maxMs: MAX_BACKOFF_MS, jitter: 0.25 }));
      },
    );
  };
  schedule(intervalMs);
  runtime.lifecycle.onShutdown('credit settle job', async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  });
}
