import { documentsOf } from '@agentplatform/service-kit';
import type { Connection, Model } from 'mongoose';
import type { HeldRun } from '../domain/execution.types.js';
import { heldRunModel, type HeldRunDocument } from './held-run.schema.js';

function toHeldRun(doc: HeldRunDocument): HeldRun {
  return { executionId: doc._id, tenantId: doc.tenant_id, heldAt: doc.held_at };
}

function fromHeldRun(run: HeldRun): HeldRunDocument {
  return { _id: run.executionId, tenant_id: run.tenantId, held_at: run.heldAt };
}

/**
 * The lines of queued runs, one per tenant (engine/held-runs.ts). Across tenants by design for
 * `tenants` (every replica's poller serves every tenant's line); the rest by tenant or by id.
 */
export class HeldRunRepository {
  readonly model: Model<HeldRunDocument>;

  constructor(connection: Connection) {
    this.model = heldRunModel(connection);
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  async add(run: HeldRun): Promise<void> {
    await documentsOf<HeldRunDocument>(this.model).insertOne(fromHeldRun(run));
  }

  /** Whether the tenant has runs in line. */
  async has(tenantId: string): Promise<boolean> {
    return (await documentsOf<HeldRunDocument>(this.model).findOne({ tenant_id: tenantId })) !== null;
  }

  /** The tenant's first `limit` runs in line, oldest first. */
  async first(tenantId: string, limit: number): Promise<HeldRun[]> {
    const docs = await documentsOf<HeldRunDocument>(this.model)
      .find({ tenant_id: tenantId })
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
    return docs.map(toHeldRun);
  }

  /** Tenants with runs in line, the one whose first run waits longest first (at most `limit`). */
  async tenants(limit: number): Promise<string[]> {
    const docs = await documentsOf<HeldRunDocument>(this.model)
      .find({}, { projection: { tenant_id: 1 } })
      .sort({ _id: 1 })
      .limit(limit * 10)
      .toArray();
    return [...new Set(docs.map((d) => d.tenant_id))].slice(0, limit);
  }

  async remove(executionId: string): Promise<void> {
    await documentsOf<HeldRunDocument>(this.model).deleteOne({ _id: executionId });
  }
}
