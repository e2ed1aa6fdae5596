import type { ClientSession, Connection, Model } from 'mongoose';
import { userSchema, type UserRecord } from './user.schema.js';

export interface User {
  id: string;
  email: string;
  passwordHash: string;
  fullName: string;
  isActive: boolean;
  createdAt: Date;
}

function toUser(record: UserRecord): User {
  return {
    id: record._id,
    email: record.email,
    passwordHash: record.password_hash,
    fullName: record.full_name,
    isActive: record.is_active,
    createdAt: record.created_at,
  };
}

/** Users are global (one login across tenants); what they may do lives in memberships. */
export class UserRepository {
  private readonly model: Model<UserRecord>;

  constructor(connection: Connection) {
    this.model = connection.model<UserRecord>('User', userSchema);
  }

  init(): Promise<unknown> {
    return this.model.init();
  }

  /** Throws a duplicate-key error when the e-mail is taken. */
  async insert(user: User, session?: ClientSession): Promise<void> {
    await this.model.create(
      [
        {
          _id: user.id,
          email: user.email,
          password_hash: user.passwordHash,
          full_name: user.fullName,
          is_active: user.isActive,
          created_at: user.createdAt,
        },
      ],
      { session },
    );
  }

  async findByEmail(email: string): Promise<User | undefined> {
    const record = await this.model.findOne({ email }).lean<UserRecord>();
    return record ? toUser(record) : undefined;
  }

  async findById(id: string): Promise<User | undefined> {
    const record = await this.model.findById(id).lean<UserRecord>();
    return record ? toUser(record) : undefined;
  }
}
