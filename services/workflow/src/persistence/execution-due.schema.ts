import { Schema, type Connection, type Model } from 'mongoose';

/**
 * One entry per running execution: when the lease takeover may next find it (the end of its lease,
 * or at once for one stored unowned or handed back). The takeover pages through these instead of
 * the executions, which hold every execution of the retention period: the local stand-in serves no
 * range from any index and scans, so the poll's cost must follow what runs, not the history
 * (docs/queries.md). An entry is written before its execution and
 * may outlive it (a crash between two writes): the takeover reads the execution by `_id` and drops
 * or moves the entry. An entry may be early, never late: an early one costs a look.
 */
export interface ExecutionDueDocument {
  /** The execution's `_id`. */
  _id: string;
  due_at: Date;
  /**
   * The execution's tenant: a tenant's running executions are counted here (its in-flight bound),
   * not in the executions, which the stand-in would scan. Entries of older releases get it at start.
   */
  tenant_id?: string;
}

const executionDueSchema = new Schema<ExecutionDueDocument>(
  {
    _id: { type: String, required: true },
    due_at: { type: Date, required: true },
    tenant_id: String,
  },
  { collection: 'execution_due', versionKey: false },
);
// The takeover's page, the longest due first. Unique because it ends in `_id`.
executionDueSchema.index({ due_at: 1, _id: 1 }, { unique: true });
// A tenant's running executions, counted for its in-flight bound.
executionDueSchema.index({ tenant_id: 1, _id: 1 }, { unique: true });

export function executionDueModel(connection: Connection): Model<ExecutionDueDocument> {
  return (
    (connection.models.ExecutionDue as Model<ExecutionDueDocument>) ??
    connection.model('ExecutionDue', executionDueSchema)
  );
}
