import { randomUUID } from 'node:crypto';
import type { AttemptResult, Delivery } from '../domain/types.js';
import type { AttemptDocument, DeliveryDocument } from './delivery.schema.js';

export const FREE = new Date(0);

/**
 * The token a delivery carries while no replica leases it. A new one on every write that frees a
 * lease: the poller claims a delivery by a compare-and-set of the token it read (`{_id,
 * lease_token}`, an index lookup on the stand-in too), so a token must never come back, or a
 * claim based on a stale read could win over a delivery that was sent in between.
 */
export function freeToken(): string {
  return `free:${randomUUID()}`;
}

export function toAttempt(record: AttemptDocument): AttemptResult {
  return {
    number: record.number,
    attemptedAt: new Date(record.attempted_at),
    durationMs: record.duration_ms,
    responseStatus: record.response_status ?? undefined,
    responseHeaders: record.response_headers ?? {},
    responseBody: record.response_body ?? undefined,
    error: record.error ?? undefined,
    success: record.success,
  };
}

export function fromAttempt(attempt: AttemptResult): AttemptDocument {
  return {
    number: attempt.number,
    attempted_at: attempt.attemptedAt,
    duration_ms: attempt.durationMs,
    response_status: attempt.responseStatus ?? null,
    response_headers: attempt.responseHeaders,
    response_body: attempt.responseBody ?? null,
    error: attempt.error ?? null,
    success: attempt.success,
  };
}

export function toDelivery(record: DeliveryDocument): Delivery {
  return {
    id: record._id,
    tenantId: record.tenant_id,
    webhookId: record.webhook_id,
    eventId: record.event_id,
    eventType: record.event_type,
    status: record.status,
    test: record.test ?? false,
    attempts: record.attempts ?? 0,
    roundAttempts: record.round_attempts ?? 0,
    attemptLog: (record.attempt_log ?? []).map(toAttempt),
    nextAttemptAt: record.next_attempt_at ?? undefined,
    responseStatus: record.response_status ?? undefined,
    responseTimeMs: record.response_time_ms ?? undefined,
    deliveredAt: record.delivered_at ?? undefined,
    lastError: record.last_error ?? undefined,
    createdAt: record.created_at,
  };
}

/** A new delivery, created already leased by the replica that sends its first attempt. */
export interface NewDelivery {
  /** `deliveryIdFor(webhookId, eventId, ...)`: the id is what keeps deliveries unique per (webhook, event). */
  id: string;
  tenantId: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  test?: boolean;
  /** The request body (`jobBody` of the event), kept on the delivery so a retry needs no other read. */
  body: string;
  /** The trace the delivery's attempts belong to (tracing on). */
  traceparent?: string;
  leaseToken?: string;
  leaseUntil?: Date;
  createdAt: Date;
}

export function fromNewDelivery(d: NewDelivery): DeliveryDocument {
  return {
    _id: d.id,
    tenant_id: d.tenantId,
    webhook_id: d.webhookId,
    event_id: d.eventId,
    event_type: d.eventType,
    status: 'pending',
    test: d.test ?? false,
    body: d.body,
    ...(d.traceparent ? { traceparent: d.traceparent } : {}),
    attempts: 0,
    round_attempts: 0,
    attempt_log: [],
    next_attempt_at: d.createdAt,
    lease_until: d.leaseUntil ?? FREE,
    lease_token: d.leaseToken ?? freeToken(),
    response_status: null,
    response_time_ms: null,
    delivered_at: null,
    last_error: null,
    created_at: d.createdAt,
    updated_at: d.createdAt,
  };
}
