import type { Lifecycle } from './lifecycle.js';

/** How a pass of a repeating job ended: with its value, or with the error it threw. */
export type PassOutcome<T> = { value: T } | { error: unknown };

/**
 * Runs a background job's `pass` again and again until shutdown, never two passes at once: the
 * first after `firstMs`, each next one after the delay `next` answers from the pass's outcome (a
 * full page: at once; a failure: a backoff). Shutdown stops the timer and waits for a running
 * pass. For the retry jobs that make sure deferred work (charges, settlements) gets done.
 */
export function startRepeatingJob<T>(
  lifecycle: Pick<Lifecycle, 'onShutdown'>,
  name: string,
  pass: () => Promise<T>,
  next: (outcome: PassOutcome<T>) => number,
  firstMs: number,
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
    running = pass().then(
      (value) => schedule(next({ value })),
      (error: unknown) => schedule(next({ error })),
    );
  };
  schedule(firstMs);
  lifecycle.onShutdown(name, async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  });
}
