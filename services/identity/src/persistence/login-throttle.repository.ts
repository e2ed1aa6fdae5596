import type { Connection, Model } from 'mongoose';
import { isDuplicateKeyError } from '@agentplatform/service-kit';
import { loginThrottleSchema, type LoginThrottleRecord } from './login-throttle.schema.js';

/** Per-account failure counters shared by every identity replica. Not tenant data: keyed by e-mail. */
export class LoginThrottleRepository {
  private readonly model: Model<LoginThrottleRecord>;

  constructor(connection: Connection) {
    this.model = connection.model<LoginThrottleRecord>('LoginThrottle', loginThrottleSchema);
  }

  init(): Promise<unknown> {
    return this.model.init();
  }

  /**
   * Counts one login attempt before its password is checked, in one atomic update, and says
   * whether it may be checked: the first `maxAttempts` attempts of a window may, later ones are
   * refused, and so is every attempt while the account is locked. N parallel attempts therefore
   * get exactly the checks N serial ones would. A window whose lock has run out starts afresh.
   */
  async countAttempt(
    account: string,
    now: Date,
    policy: { maxAttempts: number; windowMs: number },
  ): Promise<{ attempt: number; lockedUntil?: Date }> {
    const windowStart = new Date(now.getTime() - policy.windowMs);
    const counted = await this.model
      .findOneAndUpdate(
        {
          _id: account,
          $or: [{ locked_until: { $gt: now } }, { locked_until: null, window_started_at: { $gt: windowStart } }],
        },
        { $inc: { failures: 1 } },
        { returnDocument: 'after' },
      )
      .lean<LoginThrottleRecord>();
    if (counted) return { attempt: counted.failures, lockedUntil: counted.locked_until ?? undefined };
    try {
      // No open window (or an expired lock): this attempt opens a new one, replacing the old.
      await this.model.replaceOne(
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
        { upsert: true },
      );
    } catch (error) {
      // Two first attempts at once: the other one opened the window; count into it.
      if (!isDuplicateKeyError(error)) throw error;
      return this.countAttempt(account, now, policy);
    }
    return { attempt: 1 };
  }

  /** Locks the account (after its last allowed attempt failed); later attempts are refused unchecked. */
  async lock(account: string, until: Date): Promise<void> {
    await this.model.updateOne({ _id: account }, { $set: { locked_until: until, expires_at: until } });
  }

  async clear(account: string): Promise<void> {
    await this.model.deleteOne({ _id: account });
  }
}
