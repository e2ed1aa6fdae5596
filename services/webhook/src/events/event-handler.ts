import { randomUUID } from 'node:crypto';
import { eventAttributes, type ConsumedEvent, type ReceivedEnvelope } from '@agentplatform/events';
import {
  GroupCommit,
  SpanKind,
  contextFromTraceparent,
  contextWithSpan,
  currentTraceparent,
  failSpan,
  startSpan,
  type Logger,
  type Span,
} from '@agentplatform/service-kit';
import { deliveryIdFor } from '../domain/delivery-id.js';
import { matchesAny } from '../domain/event-matching.js';
import type { Webhook } from '../domain/types.js';
import type { Admission } from '../delivery/admission.js';
import { jobBody, type DispatchJob } from '../delivery/dispatch-job.js';
import type { DeliveryRepository, NewDelivery } from '../persistence/delivery.repository.js';
import type { EventRepository } from '../persistence/event.repository.js';
import type { WebhookRepository } from '../persistence/webhook.repository.js';

export interface FanOutDeps {
  events: EventRepository;
  webhooks: WebhookRepository;
  deliveries: DeliveryRepository;
  admission: Admission;
  logger: Logger;
  leaseMs: number;
}

/** The deliveries one batch of events creates: one per event and matching active webhook of its tenant. */
function plannedDeliveries(
  events: readonly ReceivedEnvelope[],
  webhooks: readonly Webhook[],
  now: Date,
  traceparents?: ReadonlyMap<string, string>,
) {
  const byTenant = new Map<string, Webhook[]>();
  for (const webhook of webhooks) byTenant.set(webhook.tenantId, [...(byTenant.get(webhook.tenantId) ?? []), webhook]);
  const planned: Array<{
    event: ReceivedEnvelope;
    webhook: Webhook;
    delivery: Omit<NewDelivery, 'leaseToken' | 'leaseUntil'>;
  }> = [];
  for (const event of events) {
    let body: string | undefined;
    for (const webhook of byTenant.get(event.tenant_id) ?? []) {
      if (!matchesAny(webhook.events, event.type)) continue;
      // Serialized once per event, whatever the number of its webhooks.
      body ??= jobBody(event);
      planned.push({
        event,
        webhook,
        delivery: {
          id: deliveryIdFor(webhook.id, event.id, event.created_at),
          tenantId: event.tenant_id,
          webhookId: webhook.id,
          eventId: event.id,
          eventType: event.type,
          body,
          traceparent: traceparents?.get(event.id),
          createdAt: now,
        },
      });
    }
  }
  return planned;
}

/**
 * What the dispatcher does with the events from Kafka. Calls that arrive while one is being handled
 * (the batches of several partitions) are handled together (a GroupCommit), with one write per
 * collection: find the tenants' webhooks, create the deliveries for the active ones (their ids are
 * derived from (webhook, event), so a repeated event creates nothing), record the events a
 * recovery may need, and queue their first attempts. Events count as handled once their
 * deliveries are stored; sending happens after, so Kafka offsets never wait for receivers.
 *
 * Every well-formed event type is delivered by the same matching rules, known or not: a newer
 * service may publish a type this one does not know yet, and skipping it would lose it.
 *
 * Deliveries are created leased to this replica and handed to the dispatcher, which queues them
 * as their tenants' queues have room and waits only briefly for a tenant whose queue stays full
 * (its endpoints hang): what does not fit then goes back to the database for the retry poller to
 * claim in the tenant's turn. So such a tenant never holds up the consumer, and with it every other
 * tenant's events, for more than that short wait.
 */
export function createEventHandler(deps: FanOutDeps): (consumed: readonly ConsumedEvent[]) => Promise<void> {
  async function handleBatch(consumed: readonly ConsumedEvent[]): Promise<void> {
    const events = consumed.map((c) => c.event);
    const traceparents = new Map<string, string>();
    for (const c of consumed) if (c.traceparent) traceparents.set(c.event.id, c.traceparent);
    const now = new Date();
    const webhooks = await deps.webhooks.ofTenants([...new Set(events.map((e) => e.tenant_id))]);
    const active = webhooks.filter((w) => w.status === 'active');
    // Recovery needs the events a webhook got no delivery of: those of tenants with a webhook
    // that is not active now. An active webhook gets its deliveries below, and events from
    // before a webhook existed are never delivered to it.
    const waiting = new Set(webhooks.filter((w) => w.status !== 'active').map((w) => w.tenantId));
    const planned = plannedDeliveries(events, active, now, traceparents);
    const leaseToken = randomUUID();
    const leaseUntil = now.getTime() + deps.leaseMs;
    // A tenant's deliveries beyond what its queue could take during the dispatcher's wait are
    // created unleased at once (the poller's), rather than leased and handed back by a second write.
    const leasable = new Map<string, number>();
    const leased = new Set<string>();
    for (const { delivery } of planned) {
      const left = leasable.get(delivery.tenantId) ?? deps.admission.leasableFor(delivery.tenantId);
      leasable.set(delivery.tenantId, left - 1);
      if (left > 0) leased.add(delivery.id);
    }
    const [, inserted] = await Promise.all([
      deps.events.recordMany(
        events.filter((e) => waiting.has(e.tenant_id)),
        now,
      ),
      deps.deliveries.insertNew(
        planned.map((p) =>
          leased.has(p.delivery.id) ? { ...p.delivery, leaseToken, leaseUntil: new Date(leaseUntil) } : p.delivery,
        ),
      ),
    ]);
    for (const [tenantId, left] of leasable) if (left < 0) deps.admission.noteBacklog(tenantId);
    if (planned.length === 0) return;
    const jobs: DispatchJob[] = planned
      .filter((p) => inserted.has(p.delivery.id) && leased.has(p.delivery.id))
      .map((p) => ({
        deliveryId: p.delivery.id,
        tenantId: p.event.tenant_id,
        eventId: p.event.id,
        eventType: p.event.type,
        test: false,
        roundAttempts: 0,
        attempts: 0,
        leaseToken,
        leaseUntil,
        webhook: p.webhook,
        body: p.delivery.body,
        traceparent: p.delivery.traceparent,
      }));
    await deps.admission.waitForRoom();
    await deps.admission.admit(jobs);
    deps.logger.debug({ events: events.length, deliveries: jobs.length }, 'events fanned out');
  }

  const calls = new GroupCommit<readonly ConsumedEvent[], undefined>(async (_key, groups) => {
    await handleBatch(groups.flat());
    return groups.map(() => undefined);
  });
  return async (consumed) => {
    if (consumed.length === 0) return;
    const spans = consumeSpans(consumed);
    if (!spans) return calls.submit('', consumed);
    try {
      // The deliveries join the trace through the consume span, not the producer's span directly.
      await calls.submit(
        '',
        consumed.map((c) => {
          const span = spans.get(c);
          return span ? { ...c, traceparent: currentTraceparent(contextWithSpan(span)) } : c;
        }),
      );
    } catch (error) {
      for (const span of spans.values()) failSpan(span, error);
      throw error;
    } finally {
      for (const span of spans.values()) span.end();
    }
  };
}

/** With tracing on, a consumer span per traced event, continuing the trace its message carries. */
function consumeSpans(consumed: readonly ConsumedEvent[]): Map<ConsumedEvent, Span> | undefined {
  let spans: Map<ConsumedEvent, Span> | undefined;
  for (const c of consumed) {
    if (!c.traceparent) continue;
    const span = startSpan(`consume ${c.event.type}`, {
      kind: SpanKind.CONSUMER,
      parent: contextFromTraceparent(c.traceparent),
      attributes: eventAttributes(c.event),
    });
    if (span) (spans ??= new Map()).set(c, span);
  }
  return spans;
}
