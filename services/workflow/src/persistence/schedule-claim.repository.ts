import { documentsOf, insertEach, isDuplicateKeyError } from '@agentplatform/service-kit';
import type { Connection, Model } from 'mongoose';
import type { ClaimState, ScheduleClaim } from '../domain/schedule-claim.types.js';
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

export class ScheduleClaimRepository {
  readonly model: Model<ClaimDocument>;

  constructor(connection: Connection) {
    this.model = claimModel(connection);
  }

  private get collection() {
    return documentsOf<ClaimDocument>(this.model);
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  /** Inserts the claims in one round trip; answers, per claim, whether this call won it. */
  async claim(claims: ScheduleClaim[]): Promise<boolean[]> {
    if (claims.length === 0) return [];
    const results = await insertEach(this.collection, claims.map(fromClaim));
    return results.map((error) => {
      if (error === undefined) return true;
      if (isDuplicateKeyError(error)) return false;
      throw error;
    });
  }

  async settle(ids: string[], state: Exclude<ClaimState, 'starting'>, error?: string): Promise<void> {
    if (ids.length === 0) return;
    await this.collection.updateMany({ _id: { $in: ids } }, { $set: { state, ...(error ? { error } : {}) } });
  }

  /** Whether the workflow has a run being started (pause and delete wait for it). */
  async startingFor(workflowId: string): Promise<boolean> {
    const found = await this.collection.findOne(
      { workflow_id: workflowId, state: 'starting' },
      {
        projection: { _id: 1 },
      },
    );
    return found !== null;
  }

  /**
   * Takes over one claim left in `starting` since before `staleBefore` (its replica died): the
   * conditional write on the old claimed_at lets exactly one replica have it.
   */
  async takeOverStale(owner: string, staleBefore: Date, now: Date): Promise<ScheduleClaim | undefined> {
    const candidates = await this.collection
      .find({ state: 'starting', claimed_at: { $lt: staleBefore } })
      .limit(20)
      .toArray();
    for (const candidate of candidates) {
      const result = await this.collection.updateOne(
        { _id: candidate._id, claimed_at: candidate.claimed_at, state: 'starting' },
        { $set: { owner, claimed_at: now } },
      );
      if (result.modifiedCount === 1) {
        return toClaim({ ...candidate, owner, claimed_at: now });
      }
    }
    return undefined;
  }

  async deleteExpired(now: Date): Promise<number> {
    const result = await this.collection.deleteMany({ expires_at: { $lt: now } });
    return result.deletedCount;
  }
}
