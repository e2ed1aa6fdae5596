import { DomainError } from '@agentplatform/service-kit';

/**
 * The signal that ends a turn: its own deadline (`limitMs` from its start, CHAT_TURN_DEADLINE_MS,
 * well inside a reservation's lifetime), or its caller's call ending (its gRPC deadline, or it
 * went away). The reason is the error the turn ends with.
 */
export function turnSignal(
  limitMs: number,
  started: number,
  caller: AbortSignal | undefined,
): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(
        new DomainError(
          'service_unavailable',
          `The chat turn ran longer than its limit of ${limitMs} ms and was stopped; ` +
            'the model rounds it finished are charged, the rest of its reservation is released',
        ),
      ),
    Math.max(0, started + limitMs - Date.now()),
  );
  const callerGone = () =>
    controller.abort(new DomainError('service_unavailable', 'The chat was stopped: its caller cancelled or timed out'));
  if (caller?.aborted) callerGone();
  caller?.addEventListener('abort', callerGone, { once: true });
  return {
    signal: controller.signal,
    clear: () => {
      clearTimeout(timer);
      caller?.removeEventListener('abort', callerGone);
    },
  };
}
