import { GroupCommit, findPage, insertEach } from '@agentplatform/service-kit';
import type { ClientSession, Collection, Connection, Model } from 'mongoose';
import type { Execution, ExecutionStatus, NodeExecution } from '../domain/execution.types.js';
import { sealedKeyId } from '../domain/sealed-headers.js';
import type { WorkflowNode } from '../domain/workflow.types.js';
import type { StatusCounts } from '../domain/statistics.js';
import { executionModel, type ExecutionDocument, type NodeExecutionDocument } from './execution.schema.js';
import type { Lease } from '../domain/lease.js';
import { staleSecretsFilter } from './workflow.repository.js';

/** The object without its undefined fields: a document stores no key for a field it does not have. */
function defined<T extends object>(value: T): T {
  for (const key of Object.keys(value) as Array<keyof T>) if (value[key] === undefined) delete value[key];
  return value;
}

function toNodeExecution(doc: NodeExecutionDocument): NodeExecution {
  return defined({
    nodeId: doc.node_id,
    status: doc.status,
    startedAt: doc.started_at,
    durationMs: doc.duration_ms,
    output: doc.output,
    error: doc.error,
    attempts: doc.attempts,
  });
}

function toNodeExecutionDoc(result: NodeExecution): NodeExecutionDocument {
  return defined({
    node_id: result.nodeId,
    status: result.status,
    started_at: result.startedAt,
    duration_ms: result.durationMs,
    output: result.output,
    error: result.error,
    attempts: result.attempts,
  });
}

function toExecution(doc: ExecutionDocument): Execution {
  return defined({
    id: doc._id,
    tenantId: doc.tenant_id,
    workflowId: doc.workflow_id,
    status: doc.status,
    trigger: doc.trigger,
    input: doc.input,
    // Executions stored before versions ran the only version there was.
    workflowVersion: doc.workflow_version ?? 1,
    parentExecutionId: doc.parent_execution_id,
    parentNodeId: doc.parent_node_id,
    depth: doc.depth,
    retryOf: doc.retry_of,
    graph: doc.graph,
    nodeExecutions: (doc.node_executions ?? []).map(toNodeExecution),
    inFlight: doc.in_flight ? { nodeId: doc.in_flight.node_id, startedAt: doc.in_flight.started_at } : undefined,
    output: doc.output,
    error: doc.error,
    failedNodeId: doc.failed_node_id,
    startedAt: doc.started_at,
    completedAt: doc.completed_at,
    durationMs: doc.duration_ms,
    deadlineAt: doc.deadline_at,
    startedEvent: doc.started_event ?? false,
    creditPending: doc.credit_pending,
  });
}

/** The stored fields of what an execution's write changes. */
function changesDoc(changes: ExecutionChanges): Partial<ExecutionDocument> {
  return defined({
    status: changes.status,
    node_executions: changes.nodeExecutions?.map(toNodeExecutionDoc),
    in_flight: changes.inFlight && { node_id: changes.inFlight.nodeId, started_at: changes.inFlight.startedAt },
    output: changes.output,
    error: changes.error,
    failed_node_id: changes.failedNodeId,
    completed_at: changes.completedAt,
    duration_ms: changes.durationMs,
    started_event: changes.startedEvent,
  });
}

function toExecutionDoc(execution: Execution, lease: Lease): ExecutionDocument {
  const { inFlight, nodeExecutions, ...rest } = execution;
  return defined({
    _id: rest.id,
    tenant_id: rest.tenantId,
    workflow_id: rest.workflowId,
    trigger: rest.trigger,
    input: rest.input,
    workflow_version: rest.workflowVersion,
    parent_execution_id: rest.parentExecutionId,
    parent_node_id: rest.parentNodeId,
    depth: rest.depth,
    retry_of: rest.retryOf,
    graph: rest.graph,
    secret_key_id: sealedKeyId(rest.graph.nodes),
    started_at: rest.startedAt,
    deadline_at: rest.deadlineAt,
    ...changesDoc({ ...rest, nodeExecutions, inFlight }),
    status: rest.status,
    started_event: rest.startedEvent,
    credit_pending: rest.creditPending || undefined,
    lease_owner: lease.owner,
    lease_until: lease.until,
    claims: 0,
  });
}

/** What a summary list leaves out (the per-node results, input and graph can be large). */
const SUMMARY_PROJECTION = { graph: 0, node_executions: 0, input: 0, output: 0 } as const;

/** What a run's write may change. */
export type ExecutionChanges = Partial<
  Pick<
    Execution,
    | 'status'
    | 'nodeExecutions'
    | 'inFlight'
    | 'output'
    | 'error'
    | 'failedNodeId'
    | 'completedAt'
    | 'durationMs'
    | 'startedEvent'
  >
>;

/** An execution read for re-sealing, with the key id stored beside its snapshot (if any). */
export interface SealedSnapshot {
  execution: Execution;
  keyId: string | undefined;
}

/**
 * Executions. Queries from the API are scoped by tenant; the engine's lease operations address one
 * execution by id and owner, and the poller and the retention job work across tenants by design
 * (they hand out and prune work, they never return data to a caller).
 */
export class ExecutionRepository {
  readonly model: Model<ExecutionDocument>;
  private readonly collection: Collection<ExecutionDocument>;

  private readonly inserts = new GroupCommit<ExecutionDocument, void>((_key, docs) =>
    insertEach(this.collection, docs),
  );
  /** Runs settled while an earlier mark was in flight are marked together: one update. */
  private readonly credited = new GroupCommit<string, void>(async (_key, ids) => {
    await this.collection.updateMany({ _id: { $in: ids } }, { $unset: { credit_pending: '' } });
    return ids.map(() => undefined);
  });

  constructor(connection: Connection) {
    this.model = executionModel(connection);
    this.collection = this.model.collection as unknown as Collection<ExecutionDocument>;
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  /**
   * Stores a new execution. Outside a transaction, the inserts that arrive while one is in flight
   * go out together as one insertMany (a group commit: under load, one round trip for many runs).
   */
  async insert(execution: Execution, lease: Lease, session?: ClientSession): Promise<void> {
    const doc = toExecutionDoc(execution, lease);
    if (session) await this.collection.insertOne(doc, { session });
    else await this.inserts.submit('', doc);
  }

  /** Which of these executions are stored (across tenants: schedule claim recovery). */
  async existing(ids: string[]): Promise<Set<string>> {
    const docs = await this.collection.find({ _id: { $in: ids } } as never, { projection: { _id: 1 } }).toArray();
    return new Set(docs.map((d) => d._id));
  }

  /**
   * By id alone (the cheapest lookup everywhere), then scoped: another tenant's execution is not
   * found. `workflowId` undefined: the execution in any of the tenant's workflows.
   */
  async get(tenantId: string, workflowId: string | undefined, id: string): Promise<Execution | undefined> {
    const doc = await this.model.findOne({ _id: id }).lean<ExecutionDocument>();
    if (!doc || doc.tenant_id !== tenantId) return undefined;
    if (workflowId !== undefined && doc.workflow_id !== workflowId) return undefined;
    return toExecution(doc);
  }

  /** By id within the tenant, whatever its workflow (retry, child runs). */
  async getById(tenantId: string, id: string): Promise<Execution | undefined> {
    const doc = await this.model.findOne({ _id: id }).lean<ExecutionDocument>();
    return doc && doc.tenant_id === tenantId ? toExecution(doc) : undefined;
  }

  /**
   * How many of the tenant's executions are running (child runs and runs waiting for a slot
   * included), counted up to `atMost`: the admission check needs no more.
   */
  async countRunning(tenantId: string, atMost: number): Promise<number> {
    return this.collection.countDocuments({ tenant_id: tenantId, status: 'running' }, { limit: atMost });
  }

  /** The running children of an execution (started by its workflow and foreach nodes). */
  async runningChildren(tenantId: string, parentExecutionId: string): Promise<Execution[]> {
    const docs = await this.model
      .find({ parent_execution_id: parentExecutionId }, { graph: 0, node_executions: 0, input: 0, output: 0 })
      .lean<ExecutionDocument[]>();
    return docs.filter((d) => d.tenant_id === tenantId && d.status === 'running').map(toExecution);
  }

  async list(
    tenantId: string,
    workflowId: string,
    options: { limit: number; status?: ExecutionStatus },
  ): Promise<{ items: Execution[]; total: number }> {
    const filter: Record<string, unknown> = { tenant_id: tenantId, workflow_id: workflowId };
    if (options.status) filter.status = options.status;
    const { docs, total } = await findPage(this.model, filter, {
      sort: { started_at: -1, _id: -1 },
      skip: 0,
      limit: options.limit,
      projection: SUMMARY_PROJECTION,
    });
    return { items: docs.map(toExecution), total };
  }

  /**
   * Writes an owned execution's progress. Matches only while this replica still holds the lease:
   * a cancelled, deleted or taken-over execution reports false. `clearInFlight` removes the
   * in-flight marker; `releaseLease` gives the lease up (the execution ended).
   */
  async save(
    execution: Pick<Execution, 'id'>,
    owner: string,
    changes: ExecutionChanges,
    options: { clearInFlight?: boolean; releaseLease?: boolean } = {},
    session?: ClientSession,
  ): Promise<boolean> {
    const set: Partial<ExecutionDocument> = changesDoc(changes);
    if (options.releaseLease) set.lease_owner = null;
    const update: Record<string, unknown> = { $set: set };
    if (options.clearInFlight) update.$unset = { in_flight: '' };
    // lease_owner is cleared when an execution ends or is cancelled, so owning it implies running.
    const result = await this.collection.updateOne({ _id: execution.id, lease_owner: owner }, update, { session });
    return result.matchedCount > 0;
  }

  /** Extends the leases of the executions this replica runs; answers the ids it still owns. */
  async renewLeases(owner: string, ids: string[], until: Date): Promise<Set<string>> {
    const result = await this.collection.updateMany(
      { _id: { $in: ids }, lease_owner: owner, status: 'running' },
      { $set: { lease_until: until } },
    );
    if (result.matchedCount === ids.length) return new Set(ids);
    const owned = await this.collection
      .find({ _id: { $in: ids }, lease_owner: owner, status: 'running' }, { projection: { _id: 1 } })
      .toArray();
    return new Set(owned.map((d) => d._id));
  }

  /** Takes over one running execution whose lease has expired (a crashed replica's, or one left queued). */
  async claimExpired(
    owner: string,
    now: Date,
    until: Date,
  ): Promise<{ execution: Execution; claims: number } | undefined> {
    const doc = await this.collection.findOneAndUpdate(
      { status: 'running', lease_until: { $lt: now } },
      { $set: { lease_owner: owner, lease_until: until }, $inc: { claims: 1 } },
      { sort: { lease_until: 1 }, returnDocument: 'after' },
    );
    return doc ? { execution: toExecution(doc), claims: doc.claims } : undefined;
  }

  /** Gives up executions this replica runs (shutdown), so another replica can take them at once. */
  async releaseLeases(owner: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.collection.updateMany(
      { _id: { $in: ids }, lease_owner: owner, status: 'running' },
      { $set: { lease_owner: null, lease_until: new Date(0) } },
    );
  }

  /**
   * Ends a running execution as cancelled, whoever runs it; undefined when it is not running. A rare
   * call, so its {_id, status} filter may cost a scan on the local stand-in.
   */
  async cancel(
    tenantId: string,
    workflowId: string,
    id: string,
    now: Date,
    session?: ClientSession,
  ): Promise<Execution | undefined> {
    const found = await this.collection.findOne({ _id: id }, { session });
    const current = found && found.tenant_id === tenantId && found.workflow_id === workflowId ? found : undefined;
    if (!current || current.status !== 'running') return undefined;
    const doc = await this.collection.findOneAndUpdate(
      { _id: id, tenant_id: tenantId, workflow_id: workflowId, status: 'running' },
      {
        $set: {
          status: 'cancelled',
          error: 'execution cancelled',
          completed_at: now,
          duration_ms: Math.max(0, now.getTime() - current.started_at.getTime()),
          lease_owner: null,
        },
        $unset: { in_flight: '' },
      },
      { returnDocument: 'after', session },
    );
    return doc ? toExecution(doc) : undefined;
  }

  async statusCounts(tenantId: string, workflowId: string): Promise<StatusCounts> {
    const rows = await this.collection
      .aggregate<{ _id: ExecutionStatus; count: number; duration: number }>([
        { $match: { tenant_id: tenantId, workflow_id: workflowId } },
        { $group: { _id: '$status', count: { $sum: 1 }, duration: { $sum: '$duration_ms' } } },
      ])
      .toArray();
    const counts: StatusCounts = { running: 0, completed: 0, failed: 0, cancelled: 0, finishedDurationMs: 0 };
    for (const row of rows) {
      if (row._id in counts) counts[row._id as ExecutionStatus] = row.count;
      if (row._id === 'completed' || row._id === 'failed') counts.finishedDurationMs += row.duration ?? 0;
    }
    return counts;
  }

  /** The start of the newest execution of each workflow. */
  async lastRunAt(tenantId: string, workflowIds: string[]): Promise<Map<string, Date>> {
    if (workflowIds.length === 0) return new Map();
    const rows = await this.collection
      .aggregate<{ _id: string; last: Date }>([
        { $match: { tenant_id: tenantId, workflow_id: { $in: workflowIds } } },
        { $group: { _id: '$workflow_id', last: { $max: '$started_at' } } },
      ])
      .toArray();
    return new Map(rows.map((r) => [r._id, new Date(r.last)]));
  }

  /** Every execution whose snapshot has header values not all under the current key (across tenants: re-sealing). */
  async *withStaleSecrets(currentKeyId: string): AsyncGenerator<SealedSnapshot> {
    const cursor = this.model
      .find(staleSecretsFilter(currentKeyId, 'graph.nodes'), { node_executions: 0, input: 0, output: 0 })
      .lean<ExecutionDocument[]>()
      .cursor();
    for await (const found of cursor) {
      const doc = found as unknown as ExecutionDocument;
      yield { execution: toExecution(doc), keyId: doc.secret_key_id };
    }
  }

  /**
   * Stores a snapshot's re-sealed nodes. Only re-sealing writes the graph after the insert, so the
   * condition on the key id it read makes replicas re-sealing together write it once.
   */
  async replaceSealedNodes(snapshot: SealedSnapshot, nodes: WorkflowNode[]): Promise<boolean> {
    const { execution } = snapshot;
    const keyId = sealedKeyId(nodes);
    const result = await this.collection.updateOne(
      {
        _id: execution.id,
        tenant_id: execution.tenantId,
        secret_key_id: snapshot.keyId ?? { $exists: false },
      } as never,
      keyId === undefined
        ? { $set: { 'graph.nodes': nodes }, $unset: { secret_key_id: '' } }
        : { $set: { 'graph.nodes': nodes, secret_key_id: keyId } },
    );
    return result.modifiedCount > 0;
  }

  async deleteForWorkflow(tenantId: string, workflowId: string): Promise<void> {
    await this.collection.deleteMany({ tenant_id: tenantId, workflow_id: workflowId });
  }

  /**
   * Runs whose credit is not settled yet, oldest first (all tenants: the settle job works for
   * everyone). Only ids and tenants: the job needs nothing else. The `_id` range (every id) gives
   * the query the keys of its unique index, the only kind the local stand-in builds and uses.
   */
  async pendingCredits(limit: number): Promise<Array<Pick<Execution, 'id' | 'tenantId'>>> {
    const docs = await this.collection
      .find({ credit_pending: true, _id: { $gt: '' } }, { projection: { _id: 1, tenant_id: 1 } })
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
    return docs.map((d) => ({ id: d._id, tenantId: d.tenant_id }));
  }

  /** The run's credit is settled: it leaves the settle job's list. */
  async markCredited(id: string): Promise<void> {
    await this.credited.submit('', id);
  }

  /**
   * Deletes finished executions that ended before `cutoff`, the oldest first, in batches of
   * `batchSize` deleted by `_id`, except each workflow's newest `keepPerWorkflow` (kept however
   * old: a workflow that runs rarely keeps its history). Answers how many went. Runs on every
   * replica: deletes are idempotent, and a finished execution never changes again.
   */
  async pruneFinishedBefore(
    cutoff: Date,
    {
      keepPerWorkflow,
      batchSize,
      maxBatches = 100,
    }: { keepPerWorkflow: number; batchSize: number; maxBatches?: number },
  ): Promise<number> {
    const candidates = this.collection
      .find(
        { completed_at: { $lt: cutoff }, status: { $ne: 'running' } },
        { projection: { tenant_id: 1, workflow_id: 1, started_at: 1 } },
      )
      .sort({ completed_at: 1 })
      .batchSize(batchSize);
    // Per workflow: the start of its newest `keepPerWorkflow`-th execution; null when it has fewer.
    const oldestKept = new Map<string, Promise<Date | null>>();
    const prunable = async (doc: Pick<ExecutionDocument, 'tenant_id' | 'workflow_id' | 'started_at'>) => {
      if (keepPerWorkflow === 0) return true;
      const key = `${doc.tenant_id}\u0000${doc.workflow_id}`;
      let threshold = oldestKept.get(key);
      if (!threshold) {
        threshold = this.collection
          .find({ tenant_id: doc.tenant_id, workflow_id: doc.workflow_id }, { projection: { started_at: 1 } })
          .sort({ started_at: -1 })
          .skip(keepPerWorkflow - 1)
          .limit(1)
          .toArray()
          .then(([nth]) => nth?.started_at ?? null);
        oldestKept.set(key, threshold);
      }
      const since = await threshold;
      return since !== null && doc.started_at < since;
    };
    let deleted = 0;
    let batches = 0;
    let chunk: Array<Pick<ExecutionDocument, '_id' | 'tenant_id' | 'workflow_id' | 'started_at'>> = [];
    const flush = async () => {
      const ids: string[] = [];
      for (const doc of chunk) if (await prunable(doc)) ids.push(doc._id);
      chunk = [];
      batches += 1;
      if (ids.length > 0) deleted += (await this.collection.deleteMany({ _id: { $in: ids } })).deletedCount;
    };
    try {
      for await (const doc of candidates) {
        chunk.push(doc);
        if (chunk.length === batchSize) await flush();
        if (batches >= maxBatches) break;
      }
      if (chunk.length > 0) await flush();
    } finally {
      await candidates.close();
    }
    return deleted;
  }
}
