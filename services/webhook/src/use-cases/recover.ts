import { ConflictError, currentTraceparent, ValidationError } from '@agentplatform/service-kit';
import { deliveryIdFor } from '../domain/delivery-id.js';
import { matchesAny } from '../domain/event-matching.js';
import { jobBody } from '../delivery/dispatch-job.js';
import { requireWebhook, type UseCaseDeps } from './deps.js';

/** Events one recovery looks at; a larger backlog is recovered by calling again with a later `since`. */
const RECOVER_EVENT_LIMIT = 10_000;

/**
 * Redelivers everything that did not reach the webhook since a time: failed deliveries are queued
 * again with a fresh schedule, and events that match the webhook's subscriptions but got no
 * delivery (they came while it was failed or disabled) get one now.
 */
export async function recover(
  deps: UseCaseDeps,
  input: { tenantId: string; webhookId: string; since: string },
): Promise<{ redelivered: number; missed: number }> {
  const since = new Date(input.since);
  if (!input.since || Number.isNaN(since.getTime()))
    throw ValidationError.field('since', 'must be an ISO 8601 timestamp');
  if (since.getTime() > Date.now()) throw ValidationError.field('since', 'must not be in the future');
  const webhook = await requireWebhook(deps, input.tenantId, input.webhookId);
  if (webhook.status !== 'active')
    throw new ConflictError(`The webhook is ${webhook.status}; set its status to active first`);

  const redelivered = await deps.deliveries.requeueFailedSince(input.tenantId, webhook.id, since);
  // Never events from before the webhook existed.
  const from = since > webhook.createdAt ? since : webhook.createdAt;
  const events = await deps.events.since(
    input.tenantId,
    from,
    (type) => matchesAny(webhook.events, type),
    RECOVER_EVENT_LIMIT,
  );
  const existing = await deps.deliveries.existingEventIds(
    input.tenantId,
    webhook.id,
    events.map((e) => e.id),
  );
  const now = new Date();
  // Recovered deliveries are sent in the trace of the recover call (tracing on).
  const traceparent = currentTraceparent();
  const inserted = await deps.deliveries.insertNew(
    events
      .filter((e) => !existing.has(e.id))
      .map((e) => ({
        id: deliveryIdFor(webhook.id, e.id, e.created_at),
        tenantId: input.tenantId,
        webhookId: webhook.id,
        eventId: e.id,
        eventType: e.type,
        body: jobBody(e),
        traceparent,
        createdAt: now,
      })),
  );
  if (redelivered + inserted.size > 0) deps.dispatcher.nudge();
  return { redelivered, missed: inserted.size };
}
