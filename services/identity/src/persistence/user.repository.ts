import type { ClientSession, Connection, Model } from 'mongoose';
import type { Role } from '../domain/roles.js';
import type { MembershipWithTenant } from './tenant.repository.js';
import {
  MEMBERSHIPS_COLLECTION,
  TENANTS_COLLECTION,
  type MembershipRecord,
  type TenantRecord,
} from './tenant.schema.js';
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

  /**
   * A user with their memberships (oldest first) and those tenants' names, in one database call:
   * `$lookup` of the memberships by `user_id` (indexed) and of their tenants by `_id`.
   */
  async findWithTenants(id: string): Promise<{ user: User; tenants: MembershipWithTenant[] } | undefined> {
    const [record] = await this.model
      .aggregate<UserRecord & { memberships: MembershipRecord[]; tenants: Array<Pick<TenantRecord, '_id' | 'name'>> }>([
        { $match: { _id: id } },
        { $limit: 1 },
        {
          $lookup: {
            from: MEMBERSHIPS_COLLECTION,
            localField: '_id',
            foreignField: 'user_id',
            as: 'memberships',
          },
        },
        {
          $lookup: {
            from: TENANTS_COLLECTION,
            localField: 'memberships.tenant_id',
            foreignField: '_id',
            as: 'tenants',
          },
        },
        { $project: { 'tenants.plan': 0, 'tenants.created_at': 0 } },
      ])
      .exec();
    if (!record) return undefined;
    const names = new Map(record.tenants.map((t) => [t._id, t.name]));
    const tenants = record.memberships
      .filter((m) => names.has(m.tenant_id))
      .sort((a, b) => compareDates(a.created_at, b.created_at) || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0))
      .map((m) => ({
        tenantId: m.tenant_id,
        userId: m.user_id,
        role: m.role as Role,
        createdAt: new Date(m.created_at),
        tenantName: names.get(m.tenant_id)!,
      }));
    return { user: toUser(record), tenants };
  }
}

function compareDates(a: Date, b: Date): number {
  return new Date(a).getTime() - new Date(b).getTime();
}
