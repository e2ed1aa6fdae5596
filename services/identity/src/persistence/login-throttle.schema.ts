import { Schema } from 'mongoose';

/** Failed logins of one account (by e-mail, so unknown addresses are throttled alike). */
export interface LoginThrottleDocument {
  _id: string;
  failures: number;
  window_started_at: Date;
  locked_until?: Date | null;
  expires_at: Date;
}

export const loginThrottleSchema = new Schema<LoginThrottleDocument>(
  {
    _id: { type: String, required: true },
    failures: { type: Number, required: true },
    window_started_at: { type: Date, required: true },
    locked_until: { type: Date, default: null },
    expires_at: { type: Date, required: true },
  },
  { collection: 'login_throttles', versionKey: false },
);
loginThrottleSchema.index({ expires_at: 1 }, { expireAfterSeconds: 0 });
