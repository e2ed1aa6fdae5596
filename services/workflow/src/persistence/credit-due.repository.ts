import { documentsOf, GroupCommit, insertEach, isDuplicateKeyError } from '@agentplatform/service-kit';
import type { ClientSession, Connection, Model } from 'mongoose';
import type { Execution } from '../domain/execution.types.js';
import { creditDueModel, type CreditDueDocument } from './credit-due.schema.js';
import { executionModel, type ExecutionDocument } from './execution.schema.js';

/** An entry whose execution is not found this long after it was written is a leftover (the insert failed). */
const ORPHAN_AFTER_MS = 60_000;

/**
 * Runs whose credit is not settled yet (credit-due.schema.ts), for the settle job. Each call is an
 * `_id` lookup but the job's page, a read of the small entry collection.
 */
export class CreditDueRepository {
  readonly model: Model<CreditDueDocument>;
  private readonly executionModel: Model<ExecutionDocument>;
  /** Entries of runs stored while an earlier batch was in flight go out together: one insertMany. */
  private readonly inserts = new GroupCommit<CreditDueDocument, void>((_key, docs) => insertEach(this.entries, docs));
  /** Runs settled while an earlier delete was in flight leave together: one deleteMany. */
  private readonly deletes = new GroupCommit<string, void>(async (_key, ids) => {
    await this.entries.deleteMany({ _id: { $in: ids } });
    return ids.map(() => undefined);
  });

  constructor(connection: Connection) {
    this.model = creditDueModel(connection);
    this.executionModel = executionModel(connection);
  }

  private get entries() {
    return documentsOf<CreditDueDocument>(this.model);
  }

  private get executions() {
    return documentsOf<ExecutionDocument>(this.executionModel);
  }

  /**
   * Moves the `credit_pending` flag of executions stored by older releases to entries. Once at
   * start; idempotent (a crash between the two writes leaves the flag, and the next start moves it).
   */
  async moveFlags(): Promise<number> {
    const flagged = await this.executions
      .find({ credit_pending: true }, { projection: { tenant_id: 1, started_at: 1 } })
      .toArray();
    if (flagged.length === 0) return 0;
    await this.entries.bulkWrite(
      flagged.map((d) => ({
        updateOne: {
          filter: { _id: d._id },
          update: { $setOnInsert: { tenant_id: d.tenant_id, created_at: d.started_at } },
          upsert: true,
        },
      })),
      { ordered: false },
    );
    await this.executions.updateMany({ _id: { $in: flagged.map((d) => d._id) } }, { $unset: { credit_pending: '' } });
    return flagged.length;
  }

  /** Written before a run whose credit is to be settled is stored (or in its transaction). */
  async willCharge(execution: Pick<Execution, 'id' | 'tenantId'>, session?: ClientSession): Promise<void> {
    const entry = { _id: execution.id, tenant_id: execution.tenantId, created_at: new Date() };
    if (session) await this.entries.insertOne(entry, { session });
    else {
      // An entry already there was left by a replica that died before storing this run (a
      // schedule tick taken over under the same execution id): it is the entry this write makes.
      await this.inserts.submit('', entry).catch((error: unknown) => {
        if (!isDuplicateKeyError(error)) throw error;
      });
    }
  }

  /**
   * Runs whose credit is not settled yet, oldest first (all tenants: the settle job works for
   * everyone), stored ones only; entries left by runs that were never stored are dropped.
   */
  async pending(limit: number, now = new Date()): Promise<Array<Pick<Execution, 'id' | 'tenantId'>>> {
    const page = await this.entries
      .find({ created_at: { $lte: now } })
      .sort({ created_at: 1, _id: 1 })
      .limit(limit)
      .toArray();
    if (page.length === 0) return [];
    const stored = await this.executions
      .find({ _id: { $in: page.map((e) => e._id) } }, { projection: { _id: 1 } })
      .toArray();
    const found = new Set(stored.map((d) => d._id));
    const orphans = page.filter((e) => !found.has(e._id) && e.created_at.getTime() < now.getTime() - ORPHAN_AFTER_MS);
    if (orphans.length > 0) await this.entries.deleteMany({ _id: { $in: orphans.map((e) => e._id) } });
    return page.filter((e) => found.has(e._id)).map((e) => ({ id: e._id, tenantId: e.tenant_id }));
  }

  /** The run's credit is settled: it leaves the settle job's list. */
  async credited(id: string): Promise<void> {
    await this.deletes.submit('', id);
  }
}
