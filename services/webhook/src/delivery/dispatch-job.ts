import type { ReceivedEnvelope } from '@agentplatform/events';
import type { AttemptOutcome } from '../persistence/delivery.repository.js';
import type { AttemptResult, Webhook } from '../domain/types.js';

/** One attempt to make: a delivery this replica holds the lease of, with what it needs to send. */
export interface DispatchJob {
  deliveryId: string;
  tenantId: string;
  eventId: string;
  eventType: string;
  test: boolean;
  /** Attempts made so far in the current schedule and in total. */
  roundAttempts: number;
  attempts: number;
  leaseToken: string;
  leaseUntil: number;
  webhook: Webhook;
  /** The exact body sent and signed. */
  body: string;
  /** The trace the attempt's span joins (tracing on); without it, the attempt starts its own. */
  traceparent?: string;
}

export interface AttemptReport {
  result: AttemptResult;
  status: AttemptOutcome['status'];
}

export function jobBody(envelope: ReceivedEnvelope): string {
  return JSON.stringify(envelope);
}

/** The report of an attempt that was not made (shutdown, a lease too short, an internal error). */
export function notSent(job: DispatchJob, error: string): AttemptReport {
  const result: AttemptResult = {
    number: job.attempts + 1,
    attemptedAt: new Date(),
    durationMs: 0,
    responseHeaders: {},
    error,
    success: false,
  };
  return { result, status: 'pending' };
}
