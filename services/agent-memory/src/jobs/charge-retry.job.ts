import { startRepeatingJob, type ServiceRuntime } from '@agentplatform/service-kit';

/**
 * Settles the chats whose charge is not settled yet (identity was unreachable, or the process
 * died between storing the reply and settling it) until each is: no chat is left uncharged
 * (docs/design.md section 5). A pass every `intervalMs`; a full page goes on at once. Every
 * replica may run it: settles are idempotent by operation id. `settle` is the use case
 * (use-cases/chat-credits.ts `retryPendingCharges`), bound by main.ts; each pass reads the small
 * collection of due charges, never the messages.
 */
export function startChargeRetryJob(
  runtime: Pick<ServiceRuntime, 'logger' | 'lifecycle'>,
  settle: (batch: number) => Promise<number>,
  intervalMs: number,
  batch = 100,
): void {
  startRepeatingJob(
    runtime.lifecycle,
    'charge retry',
    () => settle(batch),
    (outcome) => {
      if ('error' in outcome) runtime.logger.warn({ err: outcome.error }, 'charge retry failed');
      return 'value' in outcome && outcome.value === batch ? 0 : intervalMs;
    },
    intervalMs,
  );
}
