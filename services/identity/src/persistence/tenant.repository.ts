import type { ClientSession, Connection, Model } from 'mongoose';
import type { Role } from '../domain/roles.js';
import { membershipSchema, tenantSchema, type MembershipDocument, type TenantDocument } from './tenant.schema.js';

export interface Tenant {
  id: string;
  name: string;
  plan: string;
  createdAt: Date;
}

export interface Membership {
  tenantId: string;
  userId: string;
  role: Role;
  createdAt: Date;
}

export interface MembershipWithTenant extends Membership {
  tenantName: string;
}

function toMembership(record: MembershipDocument): Membership {
  return {
    tenantId: record.tenant_id,
    userId: record.user_id,
    role: record.role as Role,
    createdAt: record.created_at,
  };
}

/** Tenants and the memberships that give users a role in them. */
export class TenantRepository {
  private readonly tenants: Model<TenantDocument>;
  private readonly memberships: Model<MembershipDocument>;

  constructor(connection: Connection) {
    this.tenants = connection.model<TenantDocument>('Tenant', tenantSchema);
    this.memberships = connection.model<MembershipDocument>('Membership', membershipSchema);
  }

  async insertTenant(tenant: Tenant, session?: ClientSession): Promise<void> {
    await this.tenants.create(
      [{ _id: tenant.id, name: tenant.name, plan: tenant.plan, created_at: tenant.createdAt }],
      { session },
    );
  }

  async insertMembership(membership: Membership, session?: ClientSession): Promise<void> {
    await this.memberships.create(
      [
        {
          // One membership per user and tenant, so the pair is its natural id.
          _id: `${membership.tenantId}:${membership.userId}`,
          tenant_id: membership.tenantId,
          user_id: membership.userId,
          role: membership.role,
          created_at: membership.createdAt,
        },
      ],
      { session },
    );
  }

  async findTenant(tenantId: string): Promise<Tenant | undefined> {
    const record = await this.tenants.findById(tenantId).lean<TenantDocument>();
    return record ? { id: record._id, name: record.name, plan: record.plan, createdAt: record.created_at } : undefined;
  }

  async findMembership(tenantId: string, userId: string): Promise<Membership | undefined> {
    const record = await this.memberships.findOne({ tenant_id: tenantId, user_id: userId }).lean<MembershipDocument>();
    return record ? toMembership(record) : undefined;
  }

  /** A user's memberships, oldest first, with their tenants' names. */
  async membershipsOf(userId: string): Promise<MembershipWithTenant[]> {
    const records = await this.memberships
      .find({ user_id: userId })
      .sort({ created_at: 1, _id: 1 })
      .lean<MembershipDocument[]>();
    if (records.length === 0) return [];
    const tenants = await this.tenants
      .find({ _id: { $in: records.map((r) => r.tenant_id) } }, { name: 1 })
      .lean<Array<Pick<TenantDocument, '_id' | 'name'>>>();
    const names = new Map(tenants.map((t) => [t._id, t.name]));
    return records
      .filter((r) => names.has(r.tenant_id))
      .map((r) => ({ ...toMembership(r), tenantName: names.get(r.tenant_id)! }));
  }
}
