import type { Connection, Model, mongo } from 'mongoose';
import { documentsOf, insertEach, isDuplicateKeyError, NewestIds, pruneInBatches } from '@agentplatform/service-kit';
import type { AttemptResult, Delivery, DeliveryStatus } from '../domain/types.js';
import { deliveryDueModel, type DeliveryDueDocument } from './delivery-due.schema.js';
import { FREE, freeToken, fromAttempt, fromNewDelivery, toDelivery, type NewDelivery } from './delivery.mappers.js';
import { deliveryModel, type DeliveryDocument } from './delivery.schema.js';

export type { NewDelivery } from './delivery.mappers.js';

/** Attempts kept per delivery; redeliveries beyond that drop the oldest. */
const MAX_ATTEMPT_LOG = 50;

/** A delivery sent again from the start of its attempt schedule (manual retry, replay). */
function freshSchedule(now: Date) {
  return {
    status: 'pending',
    round_attempts: 0,
    next_attempt_at: now,
    lease_until: FREE,
    lease_token: freeToken(),
    updated_at: now,
  } as const;
}

type Schedule = Pick<DeliveryDocument, 'next_attempt_at' | 'lease_until'>;

/** The earliest time the poller may claim a pending delivery: its next attempt, once no lease runs. */
function claimableAt(record: Schedule): Date {
  const next = record.next_attempt_at?.getTime() ?? 0;
  return new Date(Math.max(next, record.lease_until.getTime() + 1));
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

/** What a delivery log's page leaves out: the attempts and the body. */
const LIST_PROJECTION = { attempt_log: 0, body: 0 } as const;

/** Deliveries with their attempt log. API queries name the tenant; dispatcher writes go by id and lease. */
export class DeliveryRepository {
  readonly model: Model<DeliveryDocument>;
  /** When each pending delivery comes due (delivery-due.schema.ts): what the retry poller pages through. */
  readonly due: Model<DeliveryDueDocument>;

  /** Each webhook's newest delivery ids: what the delivery log's page reads (newest-ids.ts). */
  readonly newest: NewestIds;

  constructor(connection: Connection) {
    this.model = deliveryModel(connection);
    this.due = deliveryDueModel(connection);
    this.newest = new NewestIds(connection, 'delivery_windows');
  }

  /**
   * Gives every pending delivery its due entry (deliveries stored by releases before the entries
   * existed). One pass over the pending deliveries at start; idempotent, so every replica may run it.
   */
  async addMissingDueEntries(): Promise<number> {
    const pending = await this.model
      .find({ status: 'pending' }, { tenant_id: 1, next_attempt_at: 1, lease_until: 1 })
      .lean<Array<Pick<DeliveryDocument, '_id' | 'tenant_id' | 'next_attempt_at' | 'lease_until'>>>();
    await this.upsertDue(pending.map((p) => ({ id: p._id, tenantId: p.tenant_id, dueAt: claimableAt(p) })));
    return pending.length;
  }

  /** Creates or moves due entries no later than `dueAt` (never later: an early entry only costs a look). */
  private async upsertDue(entries: ReadonlyArray<{ id: string; tenantId: string; dueAt: Date }>): Promise<void> {
    if (entries.length === 0) return;
    await documentsOf<DeliveryDueDocument>(this.due).bulkWrite(
      entries.map((e) => ({
        updateOne: {
          filter: { _id: e.id },
          update: { $setOnInsert: { tenant_id: e.tenantId }, $min: { due_at: e.dueAt } },
          upsert: true,
        },
      })),
      { ordered: false },
    );
  }

  /**
   * Inserts deliveries, skipping any whose (webhook, event) pair exists already (its `_id` is taken);
   * answers the ids actually inserted, which are the only ones their creator may send.
   */
  async insertNew(deliveries: readonly NewDelivery[]): Promise<Set<string>> {
    if (deliveries.length === 0) return new Set();
    const records = deliveries.map(fromNewDelivery);
    // Due entries first: a crash between the two writes leaves an entry the poller drops, never a
    // pending delivery nobody polls for.
    const entries = records.map((r) => ({ _id: r._id, tenant_id: r.tenant_id, due_at: claimableAt(r) }));
    const dueResults = await insertEach(documentsOf<DeliveryDueDocument>(this.due), entries);
    const dueFailure = dueResults.find((r) => r !== undefined && !isDuplicateKeyError(r));
    if (dueFailure) throw dueFailure;
    await this.newest.add(records.map((r) => ({ parentId: r.webhook_id, id: r._id })));
    const results = await insertEach(documentsOf<DeliveryDocument>(this.model), records);
    const failure = results.find((r) => r !== undefined && !isDuplicateKeyError(r));
    if (failure) throw failure;
    return new Set(records.filter((_, index) => results[index] === undefined).map((r) => r._id));
  }

  /**
   * The first tenant after `after` (in id order) with a delivery due by `now`, or undefined: one
   * step of the poller's walk over the tenants with due work, a bounded index read (one entry).
   */
  async nextTenantWithDueWork(after: string, now = new Date()): Promise<string | undefined> {
    const entry = await this.due
      .findOne({ tenant_id: { $gt: after }, due_at: { $lte: now } }, { tenant_id: 1 })
      .sort({ tenant_id: 1, due_at: 1 })
      .lean<Pick<DeliveryDueDocument, 'tenant_id'>>();
    return entry?.tenant_id;
  }

  /**
   * Claims up to `limit` due pending deliveries of a tenant for `leaseMs`, the longest due first: a
   * page of due entries, the deliveries read by `_id`, then one compare-and-set of each lease token
   * as read, so among replicas polling at once exactly one wins a delivery; entries whose delivery
   * is gone, finished or not due yet are dropped or moved. Every read and write but the page is by
   * `_id` (or `_id` and token), which the stand-in too answers from an index.
   */
  async claimDue(
    token: string,
    limit: number,
    leaseMs: number,
    now: Date,
    tenantId: string,
  ): Promise<DeliveryDocument[]> {
    const page = await this.due
      .find({ tenant_id: tenantId, due_at: { $lte: now } }, { _id: 1 })
      .sort({ due_at: 1 })
      .limit(limit)
      .lean<Array<Pick<DeliveryDueDocument, '_id'>>>();
    if (page.length === 0) return [];
    const ids = page.map((e) => e._id);
    const current = await this.model
      .find({ _id: { $in: ids } }, { status: 1, next_attempt_at: 1, lease_until: 1, lease_token: 1 })
      .lean<Array<Pick<DeliveryDocument, '_id' | 'status' | 'next_attempt_at' | 'lease_until' | 'lease_token'>>>();
    const byId = new Map(current.map((r) => [r._id, r]));
    const leaseUntil = new Date(now.getTime() + leaseMs);
    const dueWrites: Array<mongo.AnyBulkWriteOperation<DeliveryDueDocument>> = [];
    const candidates: Array<{ id: string; seen: string | null }> = [];
    for (const id of ids) {
      const record = byId.get(id);
      if (!record || record.status !== 'pending') {
        dueWrites.push({ deleteOne: { filter: { _id: id } } });
        continue;
      }
      const at = claimableAt(record);
      if (at > now) dueWrites.push({ updateOne: { filter: { _id: id }, update: { $set: { due_at: at } } } });
      else candidates.push({ id, seen: record.lease_token });
    }
    let claimed: DeliveryDocument[] = [];
    if (candidates.length > 0) {
      await documentsOf<DeliveryDocument>(this.model).bulkWrite(
        candidates.map((c) => ({
          updateOne: {
            filter: { _id: c.id, lease_token: c.seen },
            update: { $set: { lease_token: token, lease_until: leaseUntil } },
          },
        })),
        { ordered: false },
      );
      const read = await this.model.find({ _id: { $in: candidates.map((c) => c.id) } }).lean<DeliveryDocument[]>();
      const order = new Map(ids.map((id, index) => [id, index]));
      claimed = read.filter((r) => r.lease_token === token).sort((a, b) => order.get(a._id)! - order.get(b._id)!);
      // Not polled again while leased; the outcome moves the entry to the next attempt, or drops it.
      for (const r of claimed) {
        dueWrites.push({ updateOne: { filter: { _id: r._id }, update: { $set: { due_at: leaseUntil } } } });
      }
    }
    if (dueWrites.length > 0) await documentsOf<DeliveryDueDocument>(this.due).bulkWrite(dueWrites, { ordered: false });
    return claimed;
  }

  /**
   * Writes attempt outcomes in one round trip; an outcome whose lease was lost is dropped. Goes to
   * the driver directly: the values are already typed, and mongoose's casting of every update was
   * a tenth of the service's CPU under load.
   */
  async recordOutcomes(outcomes: readonly AttemptOutcome[], now = new Date()): Promise<number> {
    if (outcomes.length === 0) return 0;
    const result = await documentsOf<DeliveryDocument>(this.model).bulkWrite(
      outcomes.map((o) => ({
        updateOne: {
          filter: o.leaseCertain ? { _id: o.id } : { _id: o.id, lease_token: o.leaseToken },
          update: {
            $inc: { attempts: 1, round_attempts: 1 },
            $push: { attempt_log: { $each: [fromAttempt(o.attempt)], $slice: -MAX_ATTEMPT_LOG } },
            $set: {
              status: o.status,
              next_attempt_at: o.nextAttemptAt ?? null,
              lease_until: FREE,
              lease_token: freeToken(),
              response_status: o.attempt.responseStatus ?? null,
              response_time_ms: o.attempt.durationMs,
              last_error: o.lastError ?? null,
              updated_at: now,
              ...(o.status === 'delivered' ? { delivered_at: o.attempt.attemptedAt } : {}),
            },
          },
        },
      })),
      { ordered: false },
    );
    await this.moveDueEntries(outcomes, result.modifiedCount === outcomes.length);
    return result.modifiedCount;
  }

  /**
   * Moves the entries to what the outcomes decided: a retry's to its next attempt, a finished
   * delivery's away. When every outcome was written, this replica held each lease and its word is
   * final. Otherwise an outcome dropped for a lost lease may belong to a delivery another replica
   * now sends: a retry's entry may then only come forward (an early entry costs the poller one
   * look) and no entry goes (the poller drops a stale one itself).
   */
  private async moveDueEntries(outcomes: readonly AttemptOutcome[], allWritten: boolean): Promise<void> {
    const writes = outcomes.flatMap((o): Array<mongo.AnyBulkWriteOperation<DeliveryDueDocument>> => {
      if (o.status === 'pending' && o.nextAttemptAt) {
        const move = allWritten ? { $set: { due_at: o.nextAttemptAt } } : { $min: { due_at: o.nextAttemptAt } };
        return [{ updateOne: { filter: { _id: o.id }, update: move } }];
      }
      if (o.status !== 'pending' && allWritten) return [{ deleteOne: { filter: { _id: o.id } } }];
      return [];
    });
    if (writes.length > 0) await documentsOf<DeliveryDueDocument>(this.due).bulkWrite(writes, { ordered: false });
  }

  /** Gives up on a claimed delivery without sending it (its webhook is no longer active). */
  async failUnsent(id: string, token: string, reason: string, now = new Date()): Promise<void> {
    const written = await this.model.updateOne(
      { _id: id, lease_token: token },
      {
        $set: {
          status: 'failed',
          next_attempt_at: null,
          lease_until: FREE,
          lease_token: freeToken(),
          last_error: reason,
          updated_at: now,
        },
      },
    );
    if (written.modifiedCount === 1) await this.due.deleteOne({ _id: id });
  }

  /** Hands a claimed delivery back unsent, due at once (shutdown, or a lease too short to use). */
  async release(id: string, token: string, now = new Date()): Promise<void> {
    await this.due.updateOne({ _id: id }, { $min: { due_at: now } });
    await this.model.updateOne(
      { _id: id, lease_token: token },
      { $set: { lease_until: FREE, lease_token: freeToken() } },
    );
  }

  /** Hands claimed deliveries back unsent, due at once (their tenant's queue had no room). */
  async releaseMany(ids: readonly string[], token: string, now = new Date()): Promise<void> {
    if (ids.length === 0) return;
    await this.due.updateMany({ _id: { $in: ids } }, { $min: { due_at: now } });
    await documentsOf<DeliveryDocument>(this.model).bulkWrite(
      ids.map((id) => ({
        updateOne: {
          filter: { _id: id, lease_token: token },
          update: { $set: { lease_until: FREE, lease_token: freeToken() } },
        },
      })),
      { ordered: false },
    );
  }

  /**
   * A new webhook's window of newest ids is complete from the start: its first list reads by id
   * instead of filling the window by the sorted query (a scan of every delivery on the stand-in).
   */
  async openWebhook(webhookId: string): Promise<void> {
    await this.newest.open(webhookId);
  }

  /**
   * The webhook's newest deliveries: read by `_id` from its window of newest ids (the sorted
   * query below scans every delivery on the stand-in), the tenant and status checked here.
   */
  async list(tenantId: string, webhookId: string, limit: number, status?: DeliveryStatus): Promise<Delivery[]> {
    const filter = { tenant_id: tenantId, webhook_id: webhookId, ...(status ? { status } : {}) };
    const records = await this.newest.page(webhookId, limit, {
      byIds: async (ids) =>
        (await this.model.find({ _id: { $in: ids } }, LIST_PROJECTION).lean<DeliveryDocument[]>()).filter(
          (r) => r.tenant_id === tenantId && r.webhook_id === webhookId && (!status || r.status === status),
        ),
      largestIds: async (keep) =>
        (
          await this.model
            .find({ tenant_id: tenantId, webhook_id: webhookId }, { _id: 1 })
            .sort({ _id: -1 })
            .limit(keep)
            .lean<Array<{ _id: string }>>()
        ).map((r) => r._id),
      scan: () => this.model.find(filter, LIST_PROJECTION).sort({ _id: -1 }).limit(limit).lean<DeliveryDocument[]>(),
    });
    return records.map(toDelivery);
  }

  async find(tenantId: string, webhookId: string, id: string): Promise<Delivery | undefined> {
    const record = await this.model
      .findOne({ _id: id, tenant_id: tenantId, webhook_id: webhookId })
      .lean<DeliveryDocument>();
    return record ? toDelivery(record) : undefined;
  }

  /** Starts a fresh attempt schedule for a finished delivery; undefined when it is still pending. */
  async requeue(tenantId: string, webhookId: string, id: string, now = new Date()): Promise<Delivery | undefined> {
    const current = await this.model
      .findOne({ _id: id }, { tenant_id: 1, webhook_id: 1, status: 1, lease_token: 1 })
      .lean<Pick<DeliveryDocument, 'tenant_id' | 'webhook_id' | 'status' | 'lease_token'>>();
    if (!current || current.tenant_id !== tenantId || current.webhook_id !== webhookId || current.status === 'pending')
      return undefined;
    await this.upsertDue([{ id, tenantId, dueAt: now }]);
    // By the token as read: a concurrent requeue of the same delivery wins once.
    const record = await this.model
      .findOneAndUpdate(
        { _id: id, lease_token: current.lease_token },
        { $set: freshSchedule(now) },
        { returnDocument: 'after', projection: { attempt_log: 0, body: 0 } },
      )
      .lean<DeliveryDocument>();
    return record ? toDelivery(record) : undefined;
  }

  /** Starts a fresh attempt schedule for every failed (non-test) delivery created since `since`. */
  async requeueFailedSince(tenantId: string, webhookId: string, since: Date, now = new Date()): Promise<number> {
    const failed = { tenant_id: tenantId, webhook_id: webhookId, status: 'failed' as const, test: false };
    const found = await this.model
      .find({ ...failed, created_at: { $gte: since } }, { _id: 1 })
      .lean<Array<Pick<DeliveryDocument, '_id'>>>();
    if (found.length === 0) return 0;
    const ids = found.map((f) => f._id);
    await this.upsertDue(ids.map((id) => ({ id, tenantId, dueAt: now })));
    const result = await this.model.updateMany({ _id: { $in: ids }, status: 'failed' }, { $set: freshSchedule(now) });
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
    await this.newest.remove([webhookId]);
  }

  /**
   * Deletes finished deliveries (and their attempt logs) created before `cutoff`, oldest first, in
   * batches by index; answers how many went. Pending ones stay whatever their age (a redelivery
   * of an old delivery is still being sent).
   */
  async pruneFinishedBefore(cutoff: Date, batchSize: number): Promise<number> {
    return pruneInBatches(
      this.model.collection,
      { created_at: { $lt: cutoff }, status: { $in: ['delivered', 'failed'] } },
      { sort: { created_at: 1, _id: 1 }, batchSize },
    );
  }
}
