import {
  documentsOf,
  findSorted,
  GroupCommit,
  insertEach,
  NewestIds,
  pageTotal,
  QuotaCounter,
} from '@agentplatform/service-kit';
import type { ClientSession, Connection, Model } from 'mongoose';
import type { Execution, ExecutionChanges, ExecutionStatus, SealedSnapshot } from '../domain/execution.types.js';
import type { Lease } from '../domain/lease.js';
import { sealedKeyId } from '../domain/sealed-headers.js';
import type { StatusCounts } from '../domain/statistics.js';
import type { WorkflowNode } from '../domain/workflow.types.js';
import { CreditDueRepository } from './credit-due.repository.js';
import { ExecutionLeaseRepository } from './execution-lease.repository.js';
import { fromChanges, fromExecution, toExecution } from './execution.mapper.js';
import { executionModel, type ExecutionDocument } from './execution.schema.js';
import { staleSecretsFilter } from './workflow.repository.js';

/** The engine's checkpointer names the changes of a write by this module. */
export type { ExecutionChanges } from '../domain/execution.types.js';

/** What a summary list leaves out (the per-node results, input and graph can be large). */
const SUMMARY_PROJECTION = { graph: 0, node_executions: 0, input: 0, output: 0 } as const;

/**
 * A run's entry in its workflow's window of newest runs: the list's order (started_at, then id,
 * newest first) as a string that sorts the same way (ISO times of a fixed width sort as they
 * compare), ending in the id.
 */
function windowEntry(startedAt: Date, id: string): string {
  return `${startedAt.toISOString()}|${id}`;
}

function idOfEntry(entry: string): string {
  return entry.slice(entry.lastIndexOf('|') + 1);
}

/** These runs by workflow. */
function byWorkflow<T extends Pick<ExecutionDocument, 'workflow_id'>>(docs: T[]): Map<string, T[]> {
  const runs = new Map<string, T[]>();
  for (const d of docs) {
    const of = runs.get(d.workflow_id);
    if (of) of.push(d);
    else runs.set(d.workflow_id, [d]);
  }
  return runs;
}

/**
 * Executions. Queries from the API are scoped by tenant; the engine's lease operations address one
 * execution by id and owner, and the poller and the retention job work across tenants by design
 * (they hand out and prune work, they never return data to a caller).
 */
export class ExecutionRepository {
  readonly model: Model<ExecutionDocument>;
  /** Leases, their renewal and takeover (the engine's LeaseStore). */
  private readonly leases: ExecutionLeaseRepository;

  private readonly inserts = new GroupCommit<ExecutionDocument, void>(async (_key, docs) => {
    await this.announce(docs);
    const outcomes = await insertEach(this.collection, docs);
    await this.uncount(docs.filter((_, i) => outcomes[i] !== undefined));
    return outcomes;
  });
  /**
   * Each workflow's newest runs by start (newest-ids.ts): the executions list's first page reads
   * them by `_id`, where the sorted query scans every execution on the stand-in. A queued run
   * that starts is entered again at its new start.
   */
  readonly newest: NewestIds;
  /** Runs whose credit is not settled yet, for the settle job. */
  private readonly credits: CreditDueRepository;
  /**
   * Each workflow's number of executions (service-kit QuotaCounter, kind `executions`): the list's
   * total, where counting them scans every execution on the stand-in (docs/queries.md, "Counts").
   */
  private readonly counts: QuotaCounter;

  constructor(connection: Connection) {
    this.model = executionModel(connection);
    this.leases = new ExecutionLeaseRepository(connection);
    this.credits = new CreditDueRepository(connection);
    this.newest = new NewestIds(connection, 'execution_windows', undefined, idOfEntry);
    this.counts = new QuotaCounter(connection);
  }

  private get collection() {
    return documentsOf<ExecutionDocument>(this.model);
  }

  /** Builds the indexes, and gives executions of older releases their due and credit entries. */
  async init(): Promise<void> {
    await Promise.all([this.model.init(), this.leases.dueModel.init(), this.credits.model.init()]);
    await Promise.all([this.leases.addMissingDueEntries(), this.credits.moveFlags()]);
  }

  /**
   * Stores a new execution. Outside a transaction, the inserts that arrive while one is in flight
   * go out together as one insertMany (a group commit: under load, one round trip for many runs).
   */
  async insert(execution: Execution, lease: Lease, session?: ClientSession): Promise<void> {
    const doc = fromExecution(execution, lease);
    // The entries first: a crash after the insert leaves the run to the takeover and the settle job.
    await Promise.all([
      this.leases.willRun(execution, lease, session),
      execution.creditPending ? this.credits.willCharge(execution, session) : undefined,
    ]);
    if (session) {
      await this.announce([doc]);
      try {
        await this.collection.insertOne(doc, { session });
      } catch (error) {
        await this.uncount([doc]);
        throw error;
      }
    } else await this.inserts.submit('', doc);
  }

  /**
   * Enters runs in their workflows' windows and totals, before they are stored: a crash in between
   * leaves an entry that finds nothing and a total high by the run, never a run missing from
   * either. Outside any transaction, where concurrent runs of one workflow would conflict on its
   * total: a window entry written twice (a retried transaction) counts once, its total twice.
   */
  private async announce(docs: ExecutionDocument[]): Promise<void> {
    await Promise.all([
      this.newest.add(docs.map((d) => ({ parentId: d.workflow_id, id: windowEntry(d.started_at, d._id) }))),
      ...[...byWorkflow(docs)].map(([workflowId, runs]) => this.counts.add(workflowId, 'executions', runs.length)),
    ]);
  }

  /** Takes runs whose insert failed (or was a duplicate) off their totals again, as far as it can. */
  private async uncount(docs: ExecutionDocument[]): Promise<void> {
    await Promise.all(
      [...byWorkflow(docs)].map(([workflowId, runs]) =>
        this.counts.release(workflowId, 'executions', runs.length).catch(() => undefined),
      ),
    );
  }

  /** Which of these executions are stored (across tenants: schedule claim recovery). */
  async existing(ids: string[]): Promise<Set<string>> {
    const docs = await this.collection.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray();
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
  countRunning(tenantId: string, atMost: number): Promise<number> {
    return this.leases.countRunning(tenantId, atMost);
  }

  /** The running children of an execution (started by its workflow and foreach nodes). */
  async runningChildren(tenantId: string, parentExecutionId: string): Promise<Execution[]> {
    const docs = await this.model
      .find({ parent_execution_id: parentExecutionId }, { graph: 0, node_executions: 0, input: 0, output: 0 })
      .lean<ExecutionDocument[]>();
    return docs.filter((d) => d.tenant_id === tenantId && d.status === 'running').map(toExecution);
  }

  /**
   * The workflow's newest runs by start, read by `_id` from its window (the sorted query scans
   * every execution on the stand-in), and their total. The total is still counted when the page
   * is full (docs/queries.md: a count without a sort, the smaller part of the old cost).
   */
  async list(
    tenantId: string,
    workflowId: string,
    options: { limit: number; status?: ExecutionStatus },
  ): Promise<{ items: Execution[]; total: number }> {
    const { limit, status } = options;
    const filter: Record<string, unknown> = { tenant_id: tenantId, workflow_id: workflowId };
    if (status) filter.status = status;
    const page = { sort: { started_at: -1, _id: -1 } as const, skip: 0, limit, projection: SUMMARY_PROJECTION };
    const docs = await this.newest.page(workflowId, limit, {
      byIds: async (ids) =>
        (await this.model.find({ _id: { $in: ids } }, SUMMARY_PROJECTION).lean<ExecutionDocument[]>()).filter(
          (d) => d.tenant_id === tenantId && d.workflow_id === workflowId && (!status || d.status === status),
        ),
      largestIds: async (keep) =>
        (
          await this.model
            .find({ tenant_id: tenantId, workflow_id: workflowId }, { started_at: 1 })
            .sort(page.sort)
            .limit(keep)
            .lean<Array<Pick<ExecutionDocument, '_id' | 'started_at'>>>()
        ).map((d) => windowEntry(d.started_at, d._id)),
      // The total is taken below: the sorted query alone.
      scan: () => findSorted(this.model, filter, page),
    });
    const total = await pageTotal(docs.length, page, () =>
      status
        ? this.model.countDocuments(filter)
        : this.counts.count(workflowId, 'executions', () => this.model.countDocuments(filter)),
    );
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
    const set: Partial<ExecutionDocument> = fromChanges(changes);
    if (options.releaseLease) set.lease_owner = null;
    const update: Record<string, unknown> = { $set: set };
    if (options.clearInFlight) update.$unset = { in_flight: '' };
    // lease_owner is cleared when an execution ends or is cancelled, so owning it implies running.
    const result = await this.collection.updateOne({ _id: execution.id, lease_owner: owner }, update, { session });
    if (result.matchedCount > 0 && options.releaseLease) await this.leases.ended(execution.id, session);
    return result.matchedCount > 0;
  }

  claimExpired: ExecutionLeaseRepository['claimExpired'] = (owner, now, until) =>
    this.leases.claimExpired(owner, now, until);
  renewLeases: ExecutionLeaseRepository['renewLeases'] = (owner, ids, until) =>
    this.leases.renewLeases(owner, ids, until);
  releaseLeases: ExecutionLeaseRepository['releaseLeases'] = (owner, ids) => this.leases.releaseLeases(owner, ids);
  /** Starts a queued run (ExecutionLeaseRepository), entered in its workflow's window at its new start first. */
  startQueued(id: string, owner: string, now: Date, until: Date): Promise<Execution | undefined> {
    return this.leases.startQueued(id, owner, now, until, (workflowId) =>
      this.newest.add([{ parentId: workflowId, id: windowEntry(now, id) }]),
    );
  }

  /**
   * Ends a running or queued execution as cancelled, whoever runs it; undefined when it is neither. A rare
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
    if (!current || (current.status !== 'running' && current.status !== 'queued')) return undefined;
    const doc = await this.collection.findOneAndUpdate(
      { _id: id, tenant_id: tenantId, workflow_id: workflowId, status: current.status },
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
    if (!doc) return undefined;
    await this.leases.ended(id, session);
    return toExecution(doc);
  }

  async statusCounts(tenantId: string, workflowId: string): Promise<StatusCounts> {
    const rows = await this.collection
      .aggregate<{ _id: ExecutionStatus; count: number; duration: number }>([
        { $match: { tenant_id: tenantId, workflow_id: workflowId } },
        { $group: { _id: '$status', count: { $sum: 1 }, duration: { $sum: '$duration_ms' } } },
      ])
      .toArray();
    const counts: StatusCounts = {
      queued: 0,
      running: 0,
      completed: 0,
      failed: 0,
      cancelled: 0,
      finishedDurationMs: 0,
    };
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
      const doc: ExecutionDocument = found;
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
      },
      keyId === undefined
        ? { $set: { 'graph.nodes': nodes }, $unset: { secret_key_id: '' } }
        : { $set: { 'graph.nodes': nodes, secret_key_id: keyId } },
    );
    return result.modifiedCount > 0;
  }

  /**
   * A new workflow's window of runs is complete and its count of runs 0 from the start: its
   * first list reads by id and its total by one read, instead of filling both by a sorted query
   * and a count (scans of every run on the stand-in).
   */
  async openWorkflow(workflowId: string): Promise<void> {
    await Promise.all([this.newest.open(workflowId), this.counts.count(workflowId, 'executions', async () => 0)]);
  }

  async deleteForWorkflow(tenantId: string, workflowId: string): Promise<void> {
    await this.collection.deleteMany({ tenant_id: tenantId, workflow_id: workflowId });
    await Promise.all([this.newest.remove([workflowId]), this.counts.forget(workflowId, 'executions')]);
  }

  /** Runs whose credit is not settled yet, oldest first (all tenants: the settle job's page). */
  pendingCredits(limit: number): Promise<Array<Pick<Execution, 'id' | 'tenantId'>>> {
    return this.credits.pending(limit);
  }

  /** The run's credit is settled: it leaves the settle job's list. */
  markCredited(id: string): Promise<void> {
    return this.credits.credited(id);
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
      const prunes = [];
      for (const doc of chunk) if (await prunable(doc)) prunes.push(doc);
      chunk = [];
      batches += 1;
      // Per workflow, so that its total goes down by what this replica deleted (replicas prune
      // alike: a run another one deleted first is not taken off twice).
      for (const [workflowId, runs] of byWorkflow(prunes)) {
        const gone = (await this.collection.deleteMany({ _id: { $in: runs.map((r) => r._id) } })).deletedCount;
        deleted += gone;
        await this.counts.release(workflowId, 'executions', gone);
      }
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
