import { randomUUID } from 'node:crypto';
import { createEvent, EVENT_TYPES, isEventType, type EventType } from '@agentplatform/events/catalogue';
import { currentTraceparent, ValidationError } from '@agentplatform/service-kit';
import { jobBody } from '../delivery/dispatch-job.js';
import { deliveryIdFor } from '../domain/delivery-id.js';
import { SAMPLE_EVENT_DATA } from '../domain/sample-events.js';
import { requireWebhook, type UseCaseDeps } from './deps.js';

export interface TestSendResult {
  success: boolean;
  deliveryId: string;
  eventId: string;
  responseStatus?: number;
  responseTimeMs: number;
  error?: string;
}

/**
 * Sends a sample event of the given type to the webhook now, whatever its status or
 * subscriptions, and answers with the endpoint's reply. It is logged like any delivery (marked
 * `test`), makes one attempt only and never changes the webhook's status.
 */
export async function testWebhook(
  deps: UseCaseDeps,
  input: { tenantId: string; id: string; eventType: string },
): Promise<TestSendResult> {
  if (!isEventType(input.eventType)) {
    throw ValidationError.field('event_type', `must be one of ${EVENT_TYPES.join(', ')}`);
  }
  const webhook = await requireWebhook(deps, input.tenantId, input.id);
  const type: EventType = input.eventType;
  const envelope = createEvent(type, input.tenantId, SAMPLE_EVENT_DATA[type]);
  const now = new Date();
  const leaseToken = randomUUID();
  const leaseUntil = now.getTime() + deps.settings.leaseMs;
  const deliveryId = deliveryIdFor(webhook.id, envelope.id, envelope.created_at);
  const body = jobBody(envelope);
  // The test send is part of the API call's trace (tracing on).
  const traceparent = currentTraceparent();
  await deps.deliveries.insertNew([
    {
      id: deliveryId,
      tenantId: input.tenantId,
      webhookId: webhook.id,
      eventId: envelope.id,
      eventType: type,
      test: true,
      body,
      traceparent,
      leaseToken,
      leaseUntil: new Date(leaseUntil),
      createdAt: now,
    },
  ]);
  const { result } = await deps.dispatcher.sendNow({
    deliveryId,
    tenantId: input.tenantId,
    eventId: envelope.id,
    eventType: type,
    test: true,
    roundAttempts: 0,
    attempts: 0,
    leaseToken,
    leaseUntil,
    webhook,
    body,
    traceparent,
  });
  return {
    success: result.success,
    deliveryId,
    eventId: envelope.id,
    responseStatus: result.responseStatus,
    responseTimeMs: result.durationMs,
    error: result.error,
  };
}
