import { insertEach, isDuplicateKeyError } from '@agentplatform/service-kit';
import type { Collection, Connection, Model } from 'mongoose';
import { claimModel, type ClaimDocument, type ClaimState, type ScheduleClaim } from './schedule-claim.schema.js';

export type { ClaimState, ScheduleClaim } from './schedule-claim.schema.js';

export function claimId(workflowId: string, tickAt: Date): string {
  return `${workflowId}@${tickAt.getTime()}`;
}

export class ScheduleClaimRepository {
  readonly model: Model<ClaimDocument>;
  private readonly collection: Collection<ClaimDocument>;

  constructor(connection: Connection) {
    this.model = claimModel(connection);
    this.collection = this.model.collection as unknown as Collection<ClaimDocument>;
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  /** Inserts the claims in one round trip; answers, per claim, whether this call won it. */
  async claim(claims: ScheduleClaim[]): Promise<boolean[]> {
    if (claims.length === 0) return [];
    const results = await insertEach(
      this.collection,
      claims.map(({ id, ...rest }) => ({ _id: id, ...rest })),
    );
    return results.map((error) => {
      if (error === undefined) return true;
      if (isDuplicateKeyError(error)) return false;
      throw error;
    });
  }

  async settle(ids: string[], state: Exclude<ClaimState, 'starting'>, error?: string): Promise<void> {
    if (ids.length === 0) return;
    await this.collection.updateMany({ _id: { $in: ids } } as never, { $set: { state, ...(error ? { error } : {}) } });
  }

  /** Whether the workflow has a run being started (pause and delete wait for it). */
  async startingFor(workflowId: string): Promise<boolean> {
    const found = await this.collection.findOne({ workflow_id: workflowId, state: 'starting' } as never, {
      projection: { _id: 1 },
    });
    return found !== null;
  }

  /**
   * Takes over one claim left in `starting` since before `staleBefore` (its replica died): the
   * conditional write on the old claimed_at lets exactly one replica have it.
   */
  async takeOverStale(owner: string, staleBefore: Date, now: Date): Promise<ScheduleClaim | undefined> {
    const candidates = await this.collection
      .find({ state: 'starting', claimed_at: { $lt: staleBefore } } as never)
      .limit(20)
      .toArray();
    for (const candidate of candidates) {
      const result = await this.collection.updateOne(
        { _id: candidate._id, claimed_at: candidate.claimed_at, state: 'starting' } as never,
        { $set: { owner, claimed_at: now } },
      );
      if (result.modifiedCount === 1) {
        const { _id, ...rest } = candidate;
        return { id: _id, ...rest, owner, claimed_at: now };
      }
    }
    return undefined;
  }

  async get(id: string): Promise<ScheduleClaim | undefined> {
    const doc = await this.collection.findOne({ _id: id } as never);
    if (!doc) return undefined;
    const { _id, ...rest } = doc;
    return { id: _id, ...rest };
  }

  async deleteExpired(now: Date): Promise<number> {
    const result = await this.collection.deleteMany({ expires_at: { $lt: now } } as never);
    return result.deletedCount;
  }
}
