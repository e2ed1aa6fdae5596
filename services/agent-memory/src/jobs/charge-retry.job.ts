import type { ServiceRuntime } from '@agentplatform/service-kit';

/**
 * Settles the chats whose charge is not settled yet (identity was unreachable, or the process
 * died between storing the reply and settling it) until each is: no chat is left uncharged
 * (docs/design.md section 5). A pass every `intervalMs`, never two at once; a full page goes on at
 * once. Every replica may run it: settles are idempotent by operation id. `settle` is the use case
 * (use-cases/chat-credits.ts `retryPendingCharges`), bound by main.ts; each pass reads the small
 * collection of due charges, never the messages.
 */
export function startChargeRetryJob(
  runtime: Pick<ServiceRuntime, 'logger' | 'lifecycle'>,
  settle: (batch: number) => Promise<number>,
  intervalMs: number,
  batch = 100,
): void {
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
      (settled) => schedule(settled === batch ? 0 : intervalMs),
      (error) => {
        runtime.logger.warn({ err: error }, 'charge retry failed');
        schedule(intervalMs);
      },
    );
  };
  schedule(intervalMs);
  runtime.lifecycle.onShutdown('charge retry', async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  });
}
