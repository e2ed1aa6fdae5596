import type { Collection, Connection, Model } from 'mongoose';
import { insertEach, isDuplicateKeyError } from '@agentplatform/service-kit';
import type { AttemptResult, Delivery, DeliveryStatus } from '../domain/types.js';
import { deliveryModel, type AttemptRecord, type DeliveryRecord } from './delivery.schema.js';

/** Attempts kept per delivery; redeliveries beyond that drop the oldest. */
export const MAX_ATTEMPT_LOG = 50;
const FREE = new Date(0);

/** A delivery sent again from the start of its attempt schedule (manual retry, replay). */
function freshSchedule(now: Date) {
  return {
    status: 'pending',
    round_attempts: 0,
    next_attempt_at: now,
    lease_until: FREE,
    lease_token: null,
    updated_at: now,
  } as const;
}

function toAttempt(record: AttemptRecord): AttemptResult {
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

function toAttemptRecord(attempt: AttemptResult): AttemptRecord {
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

export function toDelivery(record: DeliveryRecord): Delivery {
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

/** The outcome of one attempt, written only if the writer still holds the lease. */
export interface AttemptOutcome {
  id: string;
  leaseToken: string;
  /**
   * The writer's lease certainly still runs (by a margin wider than any clock skew), so nobody
   * else can hold it and the write may go by `_id` alone: a filter of `_id` only is the one every
   * MongoDB, including the local stand-in, answers from the index rather than a collection scan.
   */
  leaseCertain?: boolean;
  attempt: AttemptResult;
  status: DeliveryStatus;
  nextAttemptAt?: Date;
  lastError?: string;
}

/** Deliveries with their attempt log. API queries name the tenant; dispatcher writes go by id and lease. */
export class DeliveryRepository {
  readonly model: Model<DeliveryRecord>;

  constructor(connection: Connection) {
    this.model = deliveryModel(connection);
  }

  private newRecord(d: NewDelivery): DeliveryRecord {
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
      lease_token: d.leaseToken ?? null,
      response_status: null,
      response_time_ms: null,
      delivered_at: null,
      last_error: null,
      created_at: d.createdAt,
      updated_at: d.createdAt,
    };
  }

  /**
   * Inserts deliveries, skipping any whose (webhook, event) pair exists already (its `_id` is taken);
   * answers the ids actually inserted, which are the only ones their creator may send.
   */
  async insertNew(deliveries: readonly NewDelivery[]): Promise<Set<string>> {
    if (deliveries.length === 0) return new Set();
    const records = deliveries.map((d) => this.newRecord(d));
    const results = await insertEach(this.model.collection as unknown as Collection<DeliveryRecord>, records);
    const failure = results.find((r) => r !== undefined && !isDuplicateKeyError(r));
    if (failure) throw failure;
    return new Set(records.filter((_, index) => results[index] === undefined).map((r) => r._id));
  }

  /** The tenants with due, unleased pending deliveries (what the retry poller takes turns over). */
  async tenantsWithDueWork(now = new Date()): Promise<string[]> {
    return this.model.distinct('tenant_id', {
      status: 'pending',
      next_attempt_at: { $lte: now },
      lease_until: { $lt: now },
    });
  }

  /**
   * Claims up to `limit` due pending deliveries of a tenant for `leaseMs`, the longest due first.
   * Each document is claimed by one conditional update, so among replicas polling at once exactly
   * one wins it; the winner finds its documents by its own token.
   */
  async claimDue(
    token: string,
    limit: number,
    leaseMs: number,
    now: Date,
    tenantId: string,
  ): Promise<DeliveryRecord[]> {
    const due = {
      status: 'pending' as const,
      tenant_id: tenantId,
      next_attempt_at: { $lte: now },
      lease_until: { $lt: now },
    };
    const candidates = await this.model.find(due, { _id: 1 }).sort({ next_attempt_at: 1 }).limit(limit).lean();
    if (candidates.length === 0) return [];
    await this.model.updateMany(
      { _id: { $in: candidates.map((c) => c._id) }, ...due },
      { $set: { lease_token: token, lease_until: new Date(now.getTime() + leaseMs) } },
    );
    return this.model.find({ _id: { $in: candidates.map((c) => c._id) }, lease_token: token }).lean<DeliveryRecord[]>();
  }

  /**
   * Writes attempt outcomes in one round trip; an outcome whose lease was lost is dropped. Goes to
   * the driver directly: the values are already typed, and mongoose's casting of every update was
   * a tenth of the service's CPU under load.
   */
  async recordOutcomes(outcomes: readonly AttemptOutcome[], now = new Date()): Promise<number> {
    if (outcomes.length === 0) return 0;
    const result = await this.model.collection.bulkWrite(
      outcomes.map((o) => ({
        updateOne: {
          filter: o.leaseCertain ? { _id: o.id } : { _id: o.id, lease_token: o.leaseToken },
          update: {
            $inc: { attempts: 1, round_attempts: 1 },
            $push: { attempt_log: { $each: [toAttemptRecord(o.attempt)], $slice: -MAX_ATTEMPT_LOG } },
            $set: {
              status: o.status,
              next_attempt_at: o.nextAttemptAt ?? null,
              lease_until: FREE,
              lease_token: null,
              response_status: o.attempt.responseStatus ?? null,
              response_time_ms: o.attempt.durationMs,
              last_error: o.lastError ?? null,
              updated_at: now,
              ...(o.status === 'delivered' ? { delivered_at: o.attempt.attemptedAt } : {}),
            },
          },
        },
      })) as never,
      { ordered: false },
    );
    return result.modifiedCount;
  }

  /** Gives up on a claimed delivery without sending it (its webhook is no longer active). */
  async failUnsent(id: string, token: string, reason: string, now = new Date()): Promise<void> {
    await this.model.updateOne(
      { _id: id, lease_token: token },
      {
        $set: {
          status: 'failed',
          next_attempt_at: null,
          lease_until: FREE,
          lease_token: null,
          last_error: reason,
          updated_at: now,
        },
      },
    );
  }

  /** Hands a claimed delivery back unsent, due at once (shutdown, or a lease too short to use). */
  async release(id: string, token: string): Promise<void> {
    await this.model.updateOne({ _id: id, lease_token: token }, { $set: { lease_until: FREE, lease_token: null } });
  }

  /** Hands claimed deliveries back unsent, due at once (their tenant's queue had no room). */
  async releaseMany(ids: readonly string[], token: string): Promise<void> {
    if (ids.length === 0) return;
    await this.model.updateMany(
      { _id: { $in: ids }, lease_token: token },
      { $set: { lease_until: FREE, lease_token: null } },
    );
  }

  async list(tenantId: string, webhookId: string, limit: number, status?: DeliveryStatus): Promise<Delivery[]> {
    const records = await this.model
      .find({ tenant_id: tenantId, webhook_id: webhookId, ...(status ? { status } : {}) }, { attempt_log: 0, body: 0 })
      .sort({ _id: -1 })
      .limit(limit)
      .lean<DeliveryRecord[]>();
    return records.map(toDelivery);
  }

  async find(tenantId: string, webhookId: string, id: string): Promise<Delivery | undefined> {
    const record = await this.model
      .findOne({ _id: id, tenant_id: tenantId, webhook_id: webhookId })
      .lean<DeliveryRecord>();
    return record ? toDelivery(record) : undefined;
  }

  /** Starts a fresh attempt schedule for a finished delivery; undefined when it is still pending. */
  async requeue(tenantId: string, webhookId: string, id: string, now = new Date()): Promise<Delivery | undefined> {
    const record = await this.model
      .findOneAndUpdate(
        { _id: id, tenant_id: tenantId, webhook_id: webhookId, status: { $ne: 'pending' } },
        { $set: freshSchedule(now) },
        { returnDocument: 'after', projection: { attempt_log: 0, body: 0 } },
      )
      .lean<DeliveryRecord>();
    return record ? toDelivery(record) : undefined;
  }

  /** Starts a fresh attempt schedule for every failed (non-test) delivery created since `since`. */
  async requeueFailedSince(tenantId: string, webhookId: string, since: Date, now = new Date()): Promise<number> {
    const result = await this.model.updateMany(
      { tenant_id: tenantId, webhook_id: webhookId, status: 'failed', test: false, created_at: { $gte: since } },
      { $set: freshSchedule(now) },
    );
    return result.modifiedCount;
  }

  /** Which of these events already have a delivery to the webhook. */
  async existingEventIds(tenantId: string, webhookId: string, eventIds: readonly string[]): Promise<Set<string>> {
    if (eventIds.length === 0) return new Set();
    const records = await this.model
      .find({ tenant_id: tenantId, webhook_id: webhookId, event_id: { $in: eventIds } }, { event_id: 1 })
      .lean<Array<{ event_id: string }>>();
    return new Set(records.map((r) => r.event_id));
  }

  async deleteForWebhook(tenantId: string, webhookId: string): Promise<void> {
    await this.model.deleteMany({ tenant_id: tenantId, webhook_id: webhookId });
  }
}
