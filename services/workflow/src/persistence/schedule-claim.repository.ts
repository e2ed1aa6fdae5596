import { documentsOf, insertEach, isDuplicateKeyError } from '@agentplatform/service-kit';
import type { Connection, Model } from 'mongoose';
import type { ClaimState, ScheduleClaim } from '../domain/schedule-claim.types.js';
import { claimDueModel, type ClaimDueDocument } from './claim-due.schema.js';
import { claimModel, type ClaimDocument } from './schedule-claim.schema.js';

function toClaim(doc: ClaimDocument): ScheduleClaim {
  return {
    id: doc._id,
    tenantId: doc.tenant_id,
    workflowId: doc.workflow_id,
    tickAt: doc.tick_at,
    executionId: doc.execution_id,
    state: doc.state,
    owner: doc.owner,
    claimedAt: doc.claimed_at,
    ...(doc.error !== undefined ? { error: doc.error } : {}),
    expiresAt: doc.expires_at,
  };
}

function fromClaim(claim: ScheduleClaim): ClaimDocument {
  return {
    _id: claim.id,
    tenant_id: claim.tenantId,
    workflow_id: claim.workflowId,
    tick_at: claim.tickAt,
    execution_id: claim.executionId,
    state: claim.state,
    owner: claim.owner,
    claimed_at: claim.claimedAt,
    ...(claim.error !== undefined ? { error: claim.error } : {}),
    expires_at: claim.expiresAt,
  };
}

/** An entry whose claim is not found this long after it was written is a leftover (the insert failed). */
const ORPHAN_AFTER_MS = 60_000;

/**
 * Schedule claims (one per workflow and tick) and the entries of those still `starting`
 * (claim-due.schema.ts): every call on the claims is by `_id` or exactly the keys of a unique
 * index; recovery and pause's wait page through the small entry collection.
 */
export class ScheduleClaimRepository {
  readonly model: Model<ClaimDocument>;
  readonly dueModel: Model<ClaimDueDocument>;

  constructor(connection: Connection) {
    this.model = claimModel(connection);
    this.dueModel = claimDueModel(connection);
  }

  private get collection() {
    return documentsOf<ClaimDocument>(this.model);
  }

  private get entries() {
    return documentsOf<ClaimDueDocument>(this.dueModel);
  }

  /** Builds the indexes, and gives claims left `starting` by older releases their entries. */
  async init(): Promise<void> {
    await Promise.all([this.model.init(), this.dueModel.init()]);
    const starting = await this.collection
      .find({ state: 'starting' }, { projection: { workflow_id: 1, claimed_at: 1 } })
      .toArray();
    await this.addEntries(starting.map((c) => ({ _id: c._id, workflow_id: c.workflow_id, claimed_at: c.claimed_at })));
  }

  /** Inserts entries; one there already (another replica's claim of the same tick, a restart) is fine. */
  private async addEntries(entries: ClaimDueDocument[]): Promise<void> {
    if (entries.length === 0) return;
    const errors = await insertEach(this.entries, entries);
    const failure = errors.find((e) => e !== undefined && !isDuplicateKeyError(e));
    if (failure) throw failure;
  }

  /**
   * Inserts the claims in one round trip, after their entries (a replica that dies in between
   * leaves the claim to recovery); answers, per claim, whether this call won it.
   */
  async claim(claims: ScheduleClaim[]): Promise<boolean[]> {
    if (claims.length === 0) return [];
    await this.addEntries(claims.map((c) => ({ _id: c.id, workflow_id: c.workflowId, claimed_at: c.claimedAt })));
    const results = await insertEach(this.collection, claims.map(fromClaim));
    return results.map((error) => {
      if (error === undefined) return true;
      if (isDuplicateKeyError(error)) return false;
      throw error;
    });
  }

  /** Settles the claims; their entries go after (a crash in between leaves them to recovery). */
  async settle(ids: string[], state: Exclude<ClaimState, 'starting'>, error?: string): Promise<void> {
    if (ids.length === 0) return;
    await this.collection.updateMany({ _id: { $in: ids } }, { $set: { state, ...(error ? { error } : {}) } });
    await this.entries.deleteMany({ _id: { $in: ids } });
  }

  /** Whether the workflow has a run being started (pause and delete wait for it). */
  async startingFor(workflowId: string): Promise<boolean> {
    const entries = await this.entries.find({ workflow_id: workflowId }, { projection: { _id: 1 } }).toArray();
    if (entries.length === 0) return false;
    const claims = await this.collection
      .find({ _id: { $in: entries.map((e) => e._id) } }, { projection: { state: 1 } })
      .toArray();
    return claims.some((c) => c.state === 'starting');
  }

  /**
   * Takes over one claim left in `starting` since before `staleBefore` (its replica died): the
   * conditional write on exactly `{_id, claimed_at, state}` (a unique index) lets exactly one
   * replica have it. Entries of claims settled or gone are dropped; those of claims taken over
   * since are moved.
   */
  async takeOverStale(owner: string, staleBefore: Date, now: Date): Promise<ScheduleClaim | undefined> {
    const page = await this.entries
      .find({ claimed_at: { $lt: staleBefore } })
      .sort({ claimed_at: 1, _id: 1 })
      .limit(20)
      .toArray();
    if (page.length === 0) return undefined;
    const found = await this.collection.find({ _id: { $in: page.map((e) => e._id) } }).toArray();
    const byId = new Map(found.map((c) => [c._id, c]));
    const drop: string[] = [];
    let taken: ScheduleClaim | undefined;
    for (const entry of page) {
      const claim = byId.get(entry._id);
      if (!claim) {
        if (entry.claimed_at.getTime() < now.getTime() - ORPHAN_AFTER_MS) drop.push(entry._id);
      } else if (claim.state !== 'starting') drop.push(entry._id);
      else if (claim.claimed_at >= staleBefore) await this.moveEntry(entry._id, claim.claimed_at);
      else if (!taken) {
        const result = await this.collection.updateOne(
          { _id: claim._id, claimed_at: claim.claimed_at, state: 'starting' },
          { $set: { owner, claimed_at: now } },
        );
        if (result.modifiedCount === 1) {
          await this.moveEntry(claim._id, now);
          taken = toClaim({ ...claim, owner, claimed_at: now });
        }
      }
    }
    if (drop.length > 0) await this.entries.deleteMany({ _id: { $in: drop } });
    return taken;
  }

  private async moveEntry(id: string, claimedAt: Date): Promise<void> {
    await this.entries.updateOne({ _id: id }, { $set: { claimed_at: claimedAt } });
  }

  async deleteExpired(now: Date): Promise<number> {
    const result = await this.collection.deleteMany({ expires_at: { $lt: now } });
    return result.deletedCount;
  }
}
