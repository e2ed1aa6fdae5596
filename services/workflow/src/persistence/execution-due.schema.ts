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
}

const executionDueSchema = new Schema<ExecutionDueDocument>(
  {
    _id: { type: String, required: true },
    due_at: { type: Date, required: true },
  },
  { collection: 'execution_due', versionKey: false },
);
// The takeover's page, the longest due first. Unique because it ends in `_id`.
executionDueSchema.index({ due_at: 1, _id: 1 }, { unique: true });

export function executionDueModel(connection: Connection): Model<ExecutionDueDocument> {
  return (
    (connection.models.ExecutionDue as Model<ExecutionDueDocument>) ??
    connection.model('ExecutionDue', executionDueSchema)
  );
}
