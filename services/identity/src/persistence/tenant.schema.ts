import { Schema } from 'mongoose';

export const TENANTS_COLLECTION = 'tenants';
export const MEMBERSHIPS_COLLECTION = 'memberships';

export interface TenantDocument {
  _id: string;
  name: string;
  plan: string;
  created_at: Date;
}

export const tenantSchema = new Schema<TenantDocument>(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    plan: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: TENANTS_COLLECTION, versionKey: false },
);

export interface MembershipDocument {
  _id: string;
  tenant_id: string;
  user_id: string;
  role: string;
  created_at: Date;
}

export const membershipSchema = new Schema<MembershipDocument>(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    user_id: { type: String, required: true },
    role: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: MEMBERSHIPS_COLLECTION, versionKey: false },
);
membershipSchema.index({ tenant_id: 1, user_id: 1 }, { unique: true });
membershipSchema.index({ user_id: 1, created_at: 1 });
