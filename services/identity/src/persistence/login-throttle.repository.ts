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

  async lockedUntil(account: string, now: Date): Promise<Date | undefined> {
    const record = await this.model.findById(account, { locked_until: 1 }).lean<LoginThrottleRecord>();
    return record?.locked_until && record.locked_until > now ? record.locked_until : undefined;
  }

  /** Counts one failure in the current window (a new window once the old one is over); returns the count. */
  async recordFailure(account: string, now: Date, windowMs: number): Promise<number> {
    const windowStart = new Date(now.getTime() - windowMs);
    const expires = new Date(now.getTime() + windowMs);
    const counted = await this.model
      .findOneAndUpdate(
        { _id: account, window_started_at: { $gt: windowStart } },
        { $inc: { failures: 1 }, $set: { expires_at: expires } },
        { returnDocument: 'after' },
      )
      .lean<LoginThrottleRecord>();
    if (counted) return counted.failures;
    try {
      await this.model.replaceOne(
        { _id: account },
        { failures: 1, window_started_at: now, locked_until: null, expires_at: expires },
        { upsert: true },
      );
    } catch (error) {
      // Two first failures at once: the other one created the window; count into it.
      if (!isDuplicateKeyError(error)) throw error;
      return this.recordFailure(account, now, windowMs);
    }
    return 1;
  }

  async lock(account: string, until: Date): Promise<void> {
    await this.model.updateOne({ _id: account }, { $set: { locked_until: until, expires_at: until } });
  }

  async clear(account: string): Promise<void> {
    await this.model.deleteOne({ _id: account });
  }
}
