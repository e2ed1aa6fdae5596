import type { Connection, Model } from 'mongoose';
import { isDuplicateKeyError, pruneInBatches } from '@agentplatform/service-kit';
import { loginThrottleSchema, type LoginThrottleDocument } from './login-throttle.schema.js';

/** Per-account failure counters shared by every identity replica. Not tenant data: keyed by e-mail. */
export class LoginThrottleRepository {
  private readonly model: Model<LoginThrottleDocument>;

  constructor(connection: Connection) {
    this.model = connection.model<LoginThrottleDocument>('LoginThrottle', loginThrottleSchema);
  }

  /**
   * Counts one login attempt before its password is checked, in one atomic update, and returns
   * its number in the window (and the lock, if one is active), so the caller lets only the first
   * few reach the password check: N parallel attempts get the checks N serial ones would. A
   * window whose lock has run out starts afresh.
   */
  async countAttempt(
    account: string,
    now: Date,
    policy: { windowMs: number },
  ): Promise<{ attempt: number; lockedUntil?: Date }> {
    const windowStart = new Date(now.getTime() - policy.windowMs);
    try {
      // One round trip in the usual cases: counting into an open window, or opening the first.
      const counted = await this.model
        .findOneAndUpdate(
          {
            _id: account,
            $or: [{ locked_until: { $gt: now } }, { locked_until: null, window_started_at: { $gt: windowStart } }],
          },
          {
            $inc: { failures: 1 },
            $setOnInsert: {
              window_started_at: now,
              locked_until: null,
              expires_at: new Date(now.getTime() + policy.windowMs),
            },
          },
          { upsert: true, returnDocument: 'after' },
        )
        .lean<LoginThrottleDocument>();
      return { attempt: counted!.failures, lockedUntil: counted!.locked_until ?? undefined };
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
    // The account has a record whose window (or lock) is over: this attempt opens a new window.
    // If another attempt did so first, nothing matches here and the retry counts into its window.
    const reopened = await this.model.replaceOne(
      {
        _id: account,
        $or: [
          { locked_until: { $ne: null, $lte: now } },
          { locked_until: null, window_started_at: { $lte: windowStart } },
        ],
      },
      {
        failures: 1,
        window_started_at: now,
        locked_until: null,
        expires_at: new Date(now.getTime() + policy.windowMs),
      },
    );
    if (reopened.modifiedCount === 1) return { attempt: 1 };
    return this.countAttempt(account, now, policy);
  }

  /** Locks the account (after its last allowed attempt failed); later attempts are refused unchecked. */
  async lock(account: string, until: Date): Promise<void> {
    await this.model.updateOne({ _id: account }, { $set: { locked_until: until, expires_at: until } });
  }

  async clear(account: string): Promise<void> {
    await this.model.deleteOne({ _id: account });
  }

  /**
   * Deletes the counters whose window and lock are over, in batches by their TTL index (which
   * does it on MongoDB; the local stand-in never expires documents, and every login's upsert scans
   * this collection there, so it must hold only the live counters).
   */
  async pruneExpired(now: Date, batchSize: number): Promise<number> {
    return pruneInBatches(this.model.collection, { expires_at: { $lt: now } }, { sort: { expires_at: 1 }, batchSize });
  }
}
