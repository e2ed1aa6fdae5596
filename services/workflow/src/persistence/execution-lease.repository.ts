import { documentsOf, GroupCommit, insertEach, isDuplicateKeyError } from '@agentplatform/service-kit';
import type { ClientSession, Connection, Model } from 'mongoose';
import type { Execution } from '../domain/execution.types.js';
import type { Lease } from '../domain/lease.js';
import { executionDueModel, type ExecutionDueDocument } from './execution-due.schema.js';
import { toExecution } from './execution.mapper.js';
import { executionModel, type ExecutionDocument } from './execution.schema.js';

/** Due entries looked at per takeover: a page of the running executions, the longest due first. */
const TAKEOVER_PAGE = 20;
const MAX_PAGES = 10;
/** An entry whose execution is not found this long after it came due is a leftover (the insert failed). */
const ORPHAN_AFTER_MS = 60_000;

/**
 * The leases of running executions (engine/ports.ts, `LeaseStore`): renewal, takeover and hand-back,
 * and the due entries (execution-due.schema.ts) that let the takeover find expired leases without
 * reading the executions' history. Every write to an execution addresses it by `_id` and exactly
 * the keys of a unique index, which the local stand-in serves; only the small due collection is
 * paged by a range.
 */
export class ExecutionLeaseRepository {
  readonly model: Model<ExecutionDocument>;
  readonly dueModel: Model<ExecutionDueDocument>;
  /** Entries of runs stored while an earlier batch was in flight go out together: one insertMany. */
  private readonly dueInserts = new GroupCommit<ExecutionDueDocument, void>((_key, docs) =>
    insertEach(this.entries, docs),
  );

  constructor(connection: Connection) {
    this.model = executionModel(connection);
    this.dueModel = executionDueModel(connection);
  }

  private get executions() {
    return documentsOf<ExecutionDocument>(this.model);
  }

  private get entries() {
    return documentsOf<ExecutionDueDocument>(this.dueModel);
  }

  /**
   * Gives every running execution its due entry (executions stored by releases before the entries
   * existed). One pass over the running executions at start; idempotent, so every replica may run it.
   */
  async addMissingDueEntries(): Promise<number> {
    const running = await this.executions
      .find({ status: 'running' }, { projection: { _id: 1, lease_until: 1, tenant_id: 1 } })
      .toArray();
    if (running.length === 0) return 0;
    await this.entries.bulkWrite(
      running.map((r) => ({
        updateOne: {
          filter: { _id: r._id },
          update: { $min: { due_at: r.lease_until }, $set: { tenant_id: r.tenant_id } },
          upsert: true,
        },
      })),
      { ordered: false },
    );
    return running.length;
  }

  /**
   * Written before a running execution is stored (or in its transaction), due when its lease ends:
   * a replica that dies after the insert leaves an entry for the takeover. Outside a transaction,
   * entries that arrive while one insert is in flight go out together as one insertMany.
   */
  async willRun(
    execution: Pick<Execution, 'id' | 'tenantId' | 'status'>,
    lease: Lease,
    session?: ClientSession,
  ): Promise<void> {
    if (execution.status !== 'running') return;
    // Due at once for a run stored unowned (its lease ended at the epoch): the orphan rule counts from then.
    const entry = {
      _id: execution.id,
      due_at: new Date(Math.max(lease.until.getTime(), Date.now())),
      tenant_id: execution.tenantId,
    };
    if (session) await this.entries.insertOne(entry, { session });
    else {
      // An entry already there was left by a replica that died before storing this run (a
      // schedule tick taken over under the same execution id): it becomes due with this lease.
      await this.dueInserts.submit('', entry).catch(async (error: unknown) => {
        if (!isDuplicateKeyError(error)) throw error;
        await this.entries.updateOne({ _id: entry._id }, { $set: { due_at: entry.due_at } });
      });
    }
  }

  /**
   * How many of the tenant's executions are running, counted up to `atMost` from their entries:
   * each is written before its run starts and goes after it ends, so the count is never low (an
   * entry a crash left counts until the takeover drops it). The due entries hold running runs
   * only, where the executions hold the history, which the stand-in would scan.
   */
  async countRunning(tenantId: string, atMost: number): Promise<number> {
    return this.entries.countDocuments({ tenant_id: tenantId }, { limit: atMost });
  }

  /**
   * The execution ended or was cancelled: its entry goes, in the same transaction when there is
   * one (a crash before this leaves the entry to the takeover, which drops it).
   */
  async ended(id: string, session?: ClientSession): Promise<void> {
    await this.entries.deleteOne({ _id: id }, { session });
  }

  /**
   * Extends the leases of the executions this replica runs; answers the ids it still owns. Each
   * write is by exactly `{_id, lease_owner}` (a unique index; owning implies running).
   */
  async renewLeases(owner: string, ids: string[], until: Date): Promise<Set<string>> {
    const result = await this.executions.bulkWrite(
      ids.map((id) => ({
        updateOne: { filter: { _id: id, lease_owner: owner }, update: { $set: { lease_until: until } } },
      })),
      { ordered: false },
    );
    let owned = new Set(ids);
    if (result.matchedCount !== ids.length) {
      const docs = await this.executions.find({ _id: { $in: ids } }, { projection: { lease_owner: 1 } }).toArray();
      owned = new Set(docs.filter((d) => d.lease_owner === owner).map((d) => d._id));
    }
    // Not an upsert: an entry deleted meanwhile belongs to a run that ended.
    if (owned.size > 0) await this.entries.updateMany({ _id: { $in: [...owned] } }, { $set: { due_at: until } });
    return owned;
  }

  /**
   * Takes over one running execution whose lease has expired (a crashed replica's, or one left
   * queued): a page of due entries, each execution read by `_id`, then a compare-and-set on exactly
   * `{_id, status: running, lease_until: <as read>}` (a unique index), so of the replicas that try
   * together exactly one wins, and a lease renewed, or a run ended, in between is left alone.
   * Entries of runs that ended are dropped; those of leases renewed since are moved to their end.
   */
  async claimExpired(
    owner: string,
    now: Date,
    until: Date,
  ): Promise<{ execution: Execution; claims: number } | undefined> {
    // A full page of entries that were only tidied is followed by the next, a few pages at most.
    for (let pages = 0; pages < MAX_PAGES; pages++) {
      const page = await this.entries
        .find({ due_at: { $lt: now } })
        .sort({ due_at: 1, _id: 1 })
        .limit(TAKEOVER_PAGE)
        .toArray();
      if (page.length === 0) return undefined;
      const found = await this.executions
        .find({ _id: { $in: page.map((e) => e._id) } }, { projection: { status: 1, lease_until: 1 } })
        .toArray();
      const byId = new Map(found.map((d) => [d._id, d]));
      const gone: string[] = [];
      const moves: Array<{ id: string; to: Date }> = [];
      let claimed: { execution: Execution; claims: number } | undefined;
      for (const entry of page) {
        const current = byId.get(entry._id);
        // Not found: gone, or its insert is still on its way (the entry is written first) unless old.
        if (!current) {
          if (entry.due_at.getTime() < now.getTime() - ORPHAN_AFTER_MS) gone.push(entry._id);
        } else if (current.status !== 'running') gone.push(entry._id);
        else if (current.lease_until >= now) moves.push({ id: entry._id, to: current.lease_until });
        else if (!claimed) claimed = await this.takeOver(entry._id, current.lease_until, owner, until);
      }
      await this.tidy(gone, moves);
      if (claimed || page.length < TAKEOVER_PAGE) return claimed;
    }
    return undefined;
  }

  private async takeOver(
    id: string,
    leaseUntil: Date,
    owner: string,
    until: Date,
  ): Promise<{ execution: Execution; claims: number } | undefined> {
    const doc = await this.executions.findOneAndUpdate(
      { _id: id, status: 'running', lease_until: leaseUntil },
      { $set: { lease_owner: owner, lease_until: until }, $inc: { claims: 1 } },
      { returnDocument: 'after' },
    );
    if (!doc) return undefined;
    await this.entries.updateOne({ _id: id }, { $set: { due_at: until } });
    return { execution: toExecution(doc), claims: doc.claims };
  }

  /** Drops the entries of executions that ended or are gone, and moves those whose lease was renewed. */
  private async tidy(gone: string[], moves: Array<{ id: string; to: Date }>): Promise<void> {
    const writes = [
      ...gone.map((id) => ({ deleteOne: { filter: { _id: id } } })),
      // Not an upsert: an entry deleted meanwhile belongs to a run that ended.
      ...moves.map((m) => ({ updateOne: { filter: { _id: m.id }, update: { $set: { due_at: m.to } } } })),
    ];
    if (writes.length > 0) await this.entries.bulkWrite(writes, { ordered: false });
  }

  /**
   * Starts a queued execution under this replica's lease: it becomes running, its clock starting now
   * (the same span to its deadline as it was stored with). Undefined when it is not queued (started
   * by another replica, or cancelled), so a queued run starts once whoever tries. A queued execution
   * has no lease and no due entry (`willRun` skips it), so the takeover never finds it; its entry is
   * written here first, due when the new lease ends, as `willRun` does for a run stored running: a
   * crash after the start leaves the run to the takeover. `$min` keeps an entry early, never late,
   * when two replicas try together; the loser's entry is the winner's, or is dropped by the takeover
   * once the execution is no longer running. `beforeStart` writes what must precede the start
   * (the run's entry in its workflow's window of newest runs).
   */
  async startQueued(
    id: string,
    owner: string,
    now: Date,
    until: Date,
    beforeStart?: (workflowId: string) => Promise<void>,
  ): Promise<Execution | undefined> {
    const queued = await this.executions.findOne(
      { _id: id },
      { projection: { status: 1, started_at: 1, deadline_at: 1, lease_until: 1, tenant_id: 1, workflow_id: 1 } },
    );
    if (!queued || queued.status !== 'queued') return undefined;
    const span = queued.deadline_at.getTime() - queued.started_at.getTime();
    await beforeStart?.(queued.workflow_id);
    await this.entries.updateOne(
      { _id: id },
      { $min: { due_at: until }, $set: { tenant_id: queued.tenant_id } },
      { upsert: true },
    );
    // Exactly the keys of the `{_id, status, lease_until}` unique index, as the takeover's write.
    const doc = await this.executions.findOneAndUpdate(
      { _id: id, status: 'queued', lease_until: queued.lease_until },
      {
        $set: {
          status: 'running',
          started_at: now,
          deadline_at: new Date(now.getTime() + span),
          lease_owner: owner,
          lease_until: until,
        },
      },
      { returnDocument: 'after' },
    );
    return doc ? toExecution(doc) : undefined;
  }

  /** Gives up executions this replica runs (shutdown), so another replica can take them at once. */
  async releaseLeases(owner: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const released = new Date(0);
    await this.executions.bulkWrite(
      ids.map((id) => ({
        updateOne: {
          filter: { _id: id, lease_owner: owner },
          update: { $set: { lease_owner: null, lease_until: released } },
        },
      })),
      { ordered: false },
    );
    await this.entries.updateMany({ _id: { $in: ids } }, { $set: { due_at: released } });
  }
}
