import { Schema } from 'mongoose';

export interface UserDocument {
  _id: string;
  /** Lower-cased; unique. */
  email: string;
  password_hash: string;
  full_name: string;
  is_active: boolean;
  created_at: Date;
}

export const userSchema = new Schema<UserDocument>(
  {
    _id: { type: String, required: true },
    email: { type: String, required: true },
    password_hash: { type: String, required: true },
    full_name: { type: String, default: '' },
    is_active: { type: Boolean, default: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'users', versionKey: false },
);
userSchema.index({ email: 1 }, { unique: true });
