import { Schema, type Connection, type Model } from 'mongoose';

/**
 * One entry per scheduled workflow: when its next tick comes (`next_run_at` on the workflow, or
 * earlier). The scheduler's poll pages through these instead of the workflows, most of which have
 * no schedule: the local stand-in serves no range from any index and scans, so the poll's cost must
 * follow the schedules, not every workflow (docs/queries.md).
 * The workflow's `next_run_at` stays the truth; an entry may be early or left over (the poll reads
 * the workflow by `_id` and moves or drops the entry), never late or missing
 * (workflow.repository.ts, `syncDue`).
 */
export interface ScheduleDueDocument {
  /** The workflow's `_id`. */
  _id: string;
  due_at: Date;
}

const scheduleDueSchema = new Schema<ScheduleDueDocument>(
  {
    _id: { type: String, required: true },
    due_at: { type: Date, required: true },
  },
  { collection: 'schedule_due', versionKey: false },
);
// The poll's page, the oldest tick first. Unique because it ends in `_id`.
scheduleDueSchema.index({ due_at: 1, _id: 1 }, { unique: true });

export function scheduleDueModel(connection: Connection): Model<ScheduleDueDocument> {
  return (
    (connection.models.ScheduleDue as Model<ScheduleDueDocument>) ?? connection.model('ScheduleDue', scheduleDueSchema)
  );
}
