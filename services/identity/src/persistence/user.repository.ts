import type { ClientSession, Connection, Model } from 'mongoose';
import type { Role } from '../domain/roles.js';
import type { MembershipWithTenant } from './tenant.repository.js';
import {
  MEMBERSHIPS_COLLECTION,
  TENANTS_COLLECTION,
  type MembershipDocument,
  type TenantDocument,
} from './tenant.schema.js';
import { userSchema, type UserDocument } from './user.schema.js';

export interface User {
  id: string;
  email: string;
  passwordHash: string;
  fullName: string;
  isActive: boolean;
  createdAt: Date;
}

function toUser(record: UserDocument): User {
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
  private readonly model: Model<UserDocument>;

  constructor(connection: Connection) {
    this.model = connection.model<UserDocument>('User', userSchema);
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
    const record = await this.model.findOne({ email }).lean<UserDocument>();
    return record ? toUser(record) : undefined;
  }

  async findById(id: string): Promise<User | undefined> {
    const record = await this.model.findById(id).lean<UserDocument>();
    return record ? toUser(record) : undefined;
  }

  /**
   * A user with their memberships (oldest first) and those tenants' names, in one database call:
   * `$lookup` of the memberships by `user_id` (indexed), one row per membership (`$unwind`, which
   * keeps a user without any), and `$lookup` of each membership's tenant by `_id`.
   */
  async findWithTenants(id: string): Promise<{ user: User; tenants: MembershipWithTenant[] } | undefined> {
    const rows = await this.model
      .aggregate<
        UserDocument & { membership?: MembershipDocument; tenant: Array<Pick<TenantDocument, '_id' | 'name'>> }
      >([
        { $match: { _id: id } },
        { $limit: 1 },
        { $lookup: { from: MEMBERSHIPS_COLLECTION, localField: '_id', foreignField: 'user_id', as: 'membership' } },
        { $unwind: { path: '$membership', preserveNullAndEmptyArrays: true } },
        {
          $lookup: { from: TENANTS_COLLECTION, localField: 'membership.tenant_id', foreignField: '_id', as: 'tenant' },
        },
        { $project: { 'tenant.plan': 0, 'tenant.created_at': 0 } },
      ])
      .exec();
    if (rows.length === 0) return undefined;
    const tenants: MembershipWithTenant[] = [];
    for (const row of rows) {
      const m = row.membership;
      const tenant = row.tenant[0];
      if (!m || !tenant) continue;
      tenants.push({
        tenantId: m.tenant_id,
        userId: m.user_id,
        role: m.role as Role,
        createdAt: new Date(m.created_at),
        tenantName: tenant.name,
      });
    }
    tenants.sort(
      (a, b) =>
        a.createdAt.getTime() - b.createdAt.getTime() ||
        (a.tenantId < b.tenantId ? -1 : a.tenantId > b.tenantId ? 1 : 0),
    );
    return { user: toUser(rows[0]), tenants };
  }
}
