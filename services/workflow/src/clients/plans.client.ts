import { identityV1 } from '@agentplatform/contracts/identity-v1';
import { createGrpcClient, type Channel, type Metrics } from '@agentplatform/service-kit';

/** A tenant's plan as identity keeps it (docs/design.md section 5). */
export interface TenantPlans {
  planOf(tenantId: string): Promise<string>;
}

/**
 * Plans from identity (GetCredits answers the tenant's plan beside its newest ledger entry), kept
 * for `ttlMs`: a plan changes rarely, and a change reaches this service within that time. Lookups
 * of one tenant that arrive while one is in flight share it.
 */
export function identityTenantPlans(
  channel: Channel,
  options: { deadlineMs: number; metrics: Metrics; ttlMs: number },
): TenantPlans {
  const client = createGrpcClient(identityV1.IdentityServiceDefinition, channel, options);
  const known = new Map<string, { plan: string; until: number }>();
  const pending = new Map<string, Promise<string>>();

  const lookUp = async (tenantId: string): Promise<string> => {
    try {
      const { plan } = await client.getCredits({ tenantId, limit: 1 });
      known.set(tenantId, { plan, until: Date.now() + options.ttlMs });
      return plan;
    } finally {
      pending.delete(tenantId);
    }
  };

  return {
    planOf(tenantId) {
      const cached = known.get(tenantId);
      if (cached && cached.until > Date.now()) return Promise.resolve(cached.plan);
      if (cached) known.delete(tenantId);
      let lookup = pending.get(tenantId);
      if (!lookup) {
        lookup = lookUp(tenantId);
        pending.set(tenantId, lookup);
      }
      return lookup;
    },
  };
}
