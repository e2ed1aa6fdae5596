import { documentsOf, findPage, GroupCommit } from '@agentplatform/service-kit';
import type { Connection, Model } from 'mongoose';
import { sealedKeyId } from '../domain/sealed-headers.js';
import type { Workflow, WorkflowChanges, WorkflowNode, WorkflowStatus } from '../domain/workflow.types.js';
import { scheduleDueModel, type ScheduleDueDocument } from './schedule-due.schema.js';
import { workflowModel, type WorkflowDocument } from './workflow.schema.js';

function toWorkflow(doc: WorkflowDocument): Workflow {
  return {
    id: doc._id,
    tenantId: doc.tenant_id,
    hookId: doc.hook_id,
    name: doc.name,
    description: doc.description ?? '',
    status: doc.status,
    nodes: doc.nodes ?? [],
    edges: doc.edges ?? [],
    nextRunAt: doc.next_run_at ?? null,
    // Workflows stored before versions read as version 1.
    version: doc.version ?? 1,
    createdAt: doc.created_at,
    updatedAt: doc.updated_at,
  };
}

/** The key id stored beside nodes (only when they hold header values: no key stored as null). */
function secretKeyIdDoc(nodes: readonly WorkflowNode[]): Pick<WorkflowDocument, 'secret_key_id'> {
  const keyId = sealedKeyId(nodes);
  return keyId === undefined ? {} : { secret_key_id: keyId };
}

/**
 * Documents whose header values are not all sealed under `currentKeyId`: under another key, in
 * plaintext, or stored before the key id was (`nodesPath` is where the nodes are).
 */
export function staleSecretsFilter(currentKeyId: string, nodesPath: string): Record<string, unknown> {
  return {
    $or: [
      { secret_key_id: { $exists: true, $ne: currentKeyId } },
      { secret_key_id: { $exists: false }, [`${nodesPath}.config.headers`]: { $exists: true } },
    ],
  };
}

function fromWorkflow(workflow: Workflow): WorkflowDocument {
  return {
    _id: workflow.id,
    tenant_id: workflow.tenantId,
    hook_id: workflow.hookId,
    name: workflow.name,
    description: workflow.description,
    status: workflow.status,
    version: workflow.version,
    nodes: workflow.nodes,
    edges: workflow.edges,
    next_run_at: workflow.nextRunAt ?? null,
    ...secretKeyIdDoc(workflow.nodes),
    created_at: workflow.createdAt,
    updated_at: workflow.updatedAt,
  };
}

/** The stored fields of an update (only those it changes). */
function fromChanges(changes: WorkflowChanges): Partial<WorkflowDocument> {
  const { nextRunAt, updatedAt, ...same } = changes;
  const set: Partial<WorkflowDocument> = { ...same, updated_at: updatedAt };
  if (nextRunAt !== undefined) set.next_run_at = nextRunAt;
  return set;
}

/**
 * Workflows; every query is scoped by tenant except the public hook lookup, which has only the id,
 * and the scheduler's, which works for every tenant.
 */
export class WorkflowRepository {
  readonly model: Model<WorkflowDocument>;
  /** When each scheduled workflow's next tick comes (schedule-due.schema.ts): what the scheduler pages through. */
  readonly dueModel: Model<ScheduleDueDocument>;
  /** Hook reads of one workflow that arrive while its read is in flight share the next read. */
  private readonly hookReads = new GroupCommit<null, Workflow | undefined>(async (hookId, callers) => {
    const doc = await this.model.findOne({ hook_id: hookId }).lean<WorkflowDocument>();
    const workflow = doc ? toWorkflow(doc) : undefined;
    return callers.map(() => workflow);
  });

  constructor(connection: Connection) {
    this.model = workflowModel(connection);
    this.dueModel = scheduleDueModel(connection);
  }

  private get collection() {
    return documentsOf<WorkflowDocument>(this.model);
  }

  private get entries() {
    return documentsOf<ScheduleDueDocument>(this.dueModel);
  }

  /** Builds the indexes, and gives scheduled workflows of older releases (or of a crash) their due entries. */
  async init(): Promise<void> {
    await Promise.all([this.model.init(), this.dueModel.init()]);
    const scheduled = await this.collection
      .find({ next_run_at: { $ne: null } }, { projection: { next_run_at: 1 } })
      .toArray();
    await this.keepDue(scheduled.map((w) => ({ id: w._id, at: w.next_run_at })));
  }

  /**
   * Creates or moves due entries no later than `at` (never later: an early entry only costs a
   * look). Every write that sets a next_run_at calls it before (a crash after the write leaves the
   * entry) and after (a poll that dropped the entry meanwhile, having read the workflow before the
   * write, sees it again).
   */
  private async keepDue(entries: ReadonlyArray<{ id: string; at: Date | null | undefined }>): Promise<void> {
    const writes = entries.flatMap(({ id, at }) =>
      at ? [{ updateOne: { filter: { _id: id }, update: { $min: { due_at: at } }, upsert: true } }] : [],
    );
    if (writes.length > 0) await this.entries.bulkWrite(writes, { ordered: false });
  }

  /**
   * Moves entries to their workflow's next tick (or drops them: null), then reads the workflows
   * again and puts back the entry of any whose next_run_at was set meanwhile: that write's own
   * entry write may have come before this one.
   */
  private async syncDue(moves: ReadonlyArray<{ id: string; at: Date | null }>): Promise<void> {
    if (moves.length === 0) return;
    await this.entries.bulkWrite(
      moves.map(({ id, at }) =>
        at
          ? { updateOne: { filter: { _id: id }, update: { $set: { due_at: at } } } }
          : { deleteOne: { filter: { _id: id } } },
      ),
      { ordered: false },
    );
    const written = new Map(moves.map((m) => [m.id, m.at?.getTime()]));
    const now = await this.collection
      .find({ _id: { $in: moves.map((m) => m.id) } }, { projection: { next_run_at: 1 } })
      .toArray();
    await this.keepDue(
      now
        .filter((w) => w.next_run_at && w.next_run_at.getTime() !== written.get(w._id))
        .map((w) => ({ id: w._id, at: w.next_run_at })),
    );
  }

  async count(tenantId: string): Promise<number> {
    return this.model.countDocuments({ tenant_id: tenantId });
  }

  async insert(workflow: Workflow): Promise<void> {
    const due = [{ id: workflow.id, at: workflow.nextRunAt }];
    await this.keepDue(due);
    await this.collection.insertOne(fromWorkflow(workflow));
    await this.keepDue(due);
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
    const missing = await this.collection.find({ hook_id: { $exists: false } }, { projection: { _id: 1 } }).toArray();
    let given = 0;
    for (const { _id } of missing) {
      const result = await this.collection.updateOne(
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
    const { docs, total } = await findPage(this.model, filter, {
      sort: { created_at: -1, _id: -1 },
      skip: options.skip,
      limit: options.limit,
    });
    return { items: docs.map(toWorkflow), total };
  }

  async update(
    tenantId: string,
    id: string,
    changes: WorkflowChanges,
    /**
     * Applies the write only while the workflow still has this status (a pause or resume in
     * between wins) and is still at this version (undefined when it moved on).
     */
    conditions: { status?: WorkflowStatus; version?: number } = {},
  ): Promise<Workflow | undefined> {
    const filter: Record<string, unknown> = { _id: id, tenant_id: tenantId };
    if (conditions.status) filter.status = conditions.status;
    if (conditions.version !== undefined) filter.version = conditions.version;
    const set = fromChanges(changes);
    // New nodes bring their own key id, or none (no header values left).
    const keyId = changes.nodes && secretKeyIdDoc(changes.nodes);
    if (keyId) Object.assign(set, keyId);
    const unset = keyId && keyId.secret_key_id === undefined ? { $unset: { secret_key_id: '' } } : {};
    const write = (query: Record<string, unknown>) =>
      this.model.findOneAndUpdate(query, { $set: set, ...unset }, { returnDocument: 'after' }).lean<WorkflowDocument>();
    if (changes.nextRunAt) await this.keepDue([{ id, at: changes.nextRunAt }]);
    let doc = await write(filter);
    // A workflow stored before versions has none and reads as version 1: only then (or when the
    // version moved on, a conflict anyway) is the write tried again with that alternative.
    if (!doc && conditions.version === 1) {
      const { version: _version, ...rest } = filter;
      doc = await write({ ...rest, version: { $exists: false } });
    }
    if (!doc) return undefined;
    await this.keepDue([{ id, at: doc.next_run_at }]);
    return toWorkflow(doc);
  }

  /**
   * Sets the status and next_run_at together, while the workflow is still at the status and
   * version it was read with (so a resume computes next_run_at from the graph it read).
   */
  async setStatus(
    tenantId: string,
    id: string,
    from: { status: WorkflowStatus; version: number },
    change: { status: WorkflowStatus; nextRunAt: Date | null },
    now: Date,
  ): Promise<Workflow | undefined> {
    return this.update(tenantId, id, { ...change, updatedAt: now }, from);
  }

  /**
   * Workflows whose next tick has come, oldest tick first (across tenants: the scheduler's poll): a
   * page of due entries, then the workflows by `_id`. Entries of workflows not due after all (moved
   * on, paused, deleted) are moved or dropped on the way.
   */
  async due(now: Date, limit: number): Promise<Workflow[]> {
    const page = await this.entries
      .find({ due_at: { $lte: now } })
      .sort({ due_at: 1, _id: 1 })
      .limit(limit)
      .toArray();
    if (page.length === 0) return [];
    const docs = await this.model.find({ _id: { $in: page.map((e) => e._id) } }).lean<WorkflowDocument[]>();
    const byId = new Map(docs.map((d) => [d._id, d]));
    const due: WorkflowDocument[] = [];
    const stale: Array<{ id: string; at: Date | null }> = [];
    for (const { _id } of page) {
      const doc = byId.get(_id);
      const next = doc?.next_run_at ?? null;
      if (doc && next && next <= now) due.push(doc);
      else stale.push({ id: _id, at: next });
    }
    await this.syncDue(stale);
    return due.sort((a, b) => a.next_run_at!.getTime() - b.next_run_at!.getTime()).map(toWorkflow);
  }

  /**
   * Moves next_run_at from `from` to `to` for each workflow still at `from`: the replica that
   * advances a tick is the only one that sees it due again, and a pause (null) is never undone.
   * Each write is by exactly `{_id, next_run_at}`, a unique index; the due entries follow.
   */
  async advance(moves: Array<{ id: string; from: Date; to: Date | null }>): Promise<void> {
    if (moves.length === 0) return;
    await this.collection.bulkWrite(
      moves.map((m) => ({
        updateOne: { filter: { _id: m.id, next_run_at: m.from }, update: { $set: { next_run_at: m.to } } },
      })),
      { ordered: false },
    );
    await this.syncDue(moves.map((m) => ({ id: m.id, at: m.to })));
  }

  /** The status of each workflow that still exists (across tenants: the scheduler's check before a run). */
  async statuses(ids: string[]): Promise<Map<string, WorkflowStatus>> {
    if (ids.length === 0) return new Map();
    const docs = await this.collection.find({ _id: { $in: ids } }, { projection: { status: 1 } }).toArray();
    return new Map(docs.map((d) => [d._id, d.status]));
  }

  /** One workflow whose header values are all sealed under this key (the start-up check of the key). */
  async sealedWith(keyId: string): Promise<Workflow | undefined> {
    const doc = await this.model.findOne({ secret_key_id: keyId }).lean<WorkflowDocument>();
    return doc ? toWorkflow(doc) : undefined;
  }

  /** Every workflow with header values not all sealed under the current key (across tenants: re-sealing). */
  async *withStaleSecrets(currentKeyId: string): AsyncGenerator<Workflow> {
    const cursor = this.model.find(staleSecretsFilter(currentKeyId, 'nodes')).lean<WorkflowDocument[]>().cursor();
    for await (const doc of cursor) yield toWorkflow(doc);
  }

  /**
   * Stores re-sealed nodes (same values, another key) without touching the version or update
   * time, unless the workflow changed since it was read: that write sealed its own values.
   */
  async replaceSealedNodes(workflow: Workflow, nodes: WorkflowNode[]): Promise<boolean> {
    const keyId = secretKeyIdDoc(nodes);
    const result = await this.model.updateOne(
      { _id: workflow.id, tenant_id: workflow.tenantId, updated_at: workflow.updatedAt },
      keyId.secret_key_id === undefined
        ? { $set: { nodes }, $unset: { secret_key_id: '' } }
        : { $set: { nodes, ...keyId } },
    );
    return result.modifiedCount > 0;
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    const result = await this.model.deleteOne({ _id: id, tenant_id: tenantId });
    if (result.deletedCount === 0) return false;
    await this.entries.deleteOne({ _id: id });
    return true;
  }
}
