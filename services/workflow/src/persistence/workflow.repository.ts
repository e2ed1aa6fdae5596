import { GroupCommit } from '@agentplatform/service-kit';
import type { Connection, Model } from 'mongoose';
import type { Workflow, WorkflowStatus } from '../domain/workflow.types.js';
import { workflowModel, type WorkflowDocument } from './workflow.schema.js';

function toWorkflow(doc: WorkflowDocument): Workflow {
  const { _id, ...rest } = doc;
  return {
    id: _id,
    ...rest,
    description: rest.description ?? '',
    nodes: rest.nodes ?? [],
    edges: rest.edges ?? [],
    // Workflows stored before versions read as version 1.
    version: rest.version ?? 1,
  };
}

/** Workflows; every query is scoped by tenant except the public hook lookup, which has only the id. */
export class WorkflowRepository {
  readonly model: Model<WorkflowDocument>;
  /** Hook reads of one workflow that arrive while its read is in flight share the next read. */
  private readonly hookReads = new GroupCommit<null, Workflow | undefined>(async (hookId, callers) => {
    const doc = await this.model.findOne({ hook_id: hookId }).lean<WorkflowDocument>();
    const workflow = doc ? toWorkflow(doc) : undefined;
    return callers.map(() => workflow);
  });

  constructor(connection: Connection) {
    this.model = workflowModel(connection);
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  async count(tenantId: string): Promise<number> {
    return this.model.countDocuments({ tenant_id: tenantId });
  }

  async insert(workflow: Workflow): Promise<void> {
    const { id, ...rest } = workflow;
    await this.model.collection.insertOne({ _id: id, ...rest } as never);
  }

  /** By id alone (the cheapest lookup everywhere), then scoped: another tenant's workflow is not found. */
  async get(tenantId: string, id: string): Promise<Workflow | undefined> {
    const doc = await this.model.findOne({ _id: id }).lean<WorkflowDocument>();
    return doc && doc.tenant_id === tenantId ? toWorkflow(doc) : undefined;
  }

  /**
   * Hooks are addressed by their secret hook id alone (a unique index); the tenant comes from the
   * document. Hooks for one workflow that arrive while its read is in flight share the next read:
   * each caller still sees a read that started after its call, so a pause or a rotation is never
   * missed.
   */
  getForHook(hookId: string): Promise<Workflow | undefined> {
    return this.hookReads.submit(hookId, null);
  }

  /** Replaces the hook id: the old one finds nothing from this write on. */
  async rotateHook(tenantId: string, id: string, hookId: string, now: Date): Promise<Workflow | undefined> {
    const doc = await this.model
      .findOneAndUpdate(
        { _id: id, tenant_id: tenantId },
        { $set: { hook_id: hookId, updated_at: now } },
        { returnDocument: 'after' },
      )
      .lean<WorkflowDocument>();
    return doc ? toWorkflow(doc) : undefined;
  }

  /**
   * Gives every workflow stored before hook ids one (docs/workflows.md, "Hook URLs"). Run at every
   * start; idempotent, and safe with several replicas starting together: each write applies only
   * while the workflow still has none, so the first replica's id wins and the others' are no-ops.
   */
  async migrateHookIds(newHookId: () => string): Promise<number> {
    const missing = await this.model.collection
      .find({ hook_id: { $exists: false } }, { projection: { _id: 1 } })
      .toArray();
    let given = 0;
    for (const { _id } of missing) {
      const result = await this.model.collection.updateOne(
        { _id, hook_id: { $exists: false } },
        { $set: { hook_id: newHookId() } },
      );
      given += result.modifiedCount;
    }
    return given;
  }

  async list(
    tenantId: string,
    options: { skip: number; limit: number; status?: string },
  ): Promise<{ items: Workflow[]; total: number }> {
    const filter: Record<string, unknown> = { tenant_id: tenantId };
    if (options.status) filter.status = options.status;
    const [docs, total] = await Promise.all([
      this.model
        .find(filter)
        .sort({ created_at: -1, _id: -1 })
        .skip(options.skip)
        .limit(options.limit)
        .lean<WorkflowDocument[]>(),
      this.model.countDocuments(filter),
    ]);
    return { items: docs.map(toWorkflow), total };
  }

  async update(
    tenantId: string,
    id: string,
    changes: Partial<Pick<Workflow, 'name' | 'description' | 'nodes' | 'edges' | 'status' | 'version'>> & {
      updated_at: Date;
    },
    /** Applies the write only while the workflow is still at this version (undefined when it moved on). */
    expectedVersion?: number,
  ): Promise<Workflow | undefined> {
    const filter: Record<string, unknown> = { _id: id, tenant_id: tenantId };
    if (expectedVersion !== undefined) {
      filter.$or = [{ version: expectedVersion }, ...(expectedVersion === 1 ? [{ version: { $exists: false } }] : [])];
    }
    const doc = await this.model
      .findOneAndUpdate(filter, { $set: changes }, { returnDocument: 'after' })
      .lean<WorkflowDocument>();
    return doc ? toWorkflow(doc) : undefined;
  }

  async setStatus(tenantId: string, id: string, status: WorkflowStatus, now: Date): Promise<Workflow | undefined> {
    return this.update(tenantId, id, { status, updated_at: now });
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    const result = await this.model.deleteOne({ _id: id, tenant_id: tenantId });
    return result.deletedCount > 0;
  }
}
