import { Schema, type Connection, type Model } from 'mongoose';
import { documentsOf, insertEach, isDuplicateKeyError } from '@agentplatform/service-kit';
import type { OutboxEvent, OutboxDocument } from './outbox.js';

/**
 * Why a record left the outbox unpublished: larger than the producer's own limit (never sent),
 * refused by the broker for good (too large, invalid), or refused on every one of its attempts.
 */
export type DeadLetterReason = 'too_large' | 'rejected' | 'attempts';

/** An outbox record that can never be published, kept for an operator to inspect or replay. */
export interface DeadLetterDocument {
  /** The event id (the outbox record's id). */
  _id: string;
  envelope: OutboxEvent;
  request_id?: string;
  traceparent?: string;
  /** When the event was stored in the outbox. */
  created_at: Date;
  /** When it was moved here; pruning goes by this. */
  dead_at: Date;
  reason: DeadLetterReason;
  /** The broker refusals it met. */
  attempts: number;
  error: string;
}

const deadLetterSchema = new Schema<DeadLetterDocument>(
  {
    _id: { type: String, required: true },
    envelope: { type: Schema.Types.Mixed, required: true },
    request_id: String,
    traceparent: String,
    created_at: { type: Date, required: true },
    dead_at: { type: Date, required: true },
    reason: { type: String, required: true },
    attempts: { type: Number, required: true },
    error: { type: String, required: true },
  },
  { collection: 'outbox_dead_letters', versionKey: false, minimize: false },
);
// Serves the prune's range on dead_at. Unique (it cannot conflict: `_id` is) because the local
// stand-in builds only unique indexes.
deadLetterSchema.index({ dead_at: 1, _id: 1 }, { unique: true });

/** Dead letters are few; an hourly look for expired ones is plenty. */
export const DEAD_LETTER_PRUNE_INTERVAL_MS = 60 * 60_000;
/** Expired dead letters are deleted this many at a time, so a prune never holds the collection long. */
const DEAD_LETTER_PRUNE_BATCH = 100;

/**
 * The outbox's dead-letter collection (`outbox_dead_letters`, beside `outbox` in the service's
 * database). A record moves here when it can never be published, so it no longer holds a place in
 * the outbox; expired ones are pruned by index, in small batches, on every replica.
 */
export class DeadLetters {
  readonly model: Model<DeadLetterDocument>;

  private constructor(connection: Connection) {
    this.model =
      (connection.models.OutboxDeadLetter as Model<DeadLetterDocument>) ??
      connection.model('OutboxDeadLetter', deadLetterSchema);
  }

  /** The dead letters of the database `connection` is on (its index is built in the background). */
  static of(connection: Connection): DeadLetters {
    return new DeadLetters(connection);
  }

  /** The same, once its index is built. */
  static async open(connection: Connection): Promise<DeadLetters> {
    const deadLetters = new DeadLetters(connection);
    await deadLetters.model.init();
    return deadLetters;
  }

  /**
   * Stores the records as dead letters. A record stored already (a relay that died before it
   * deleted the outbox copy, and the next one met it again) is left as it is.
   */
  async store(records: readonly OutboxDocument[], reason: DeadLetterReason, error: string): Promise<void> {
    const now = new Date();
    const letters: DeadLetterDocument[] = records.map((record) => ({
      _id: record._id,
      envelope: record.envelope,
      ...(record.request_id ? { request_id: record.request_id } : {}),
      ...(record.traceparent ? { traceparent: record.traceparent } : {}),
      created_at: record.created_at,
      dead_at: now,
      reason,
      attempts: record.attempts,
      error,
    }));
    const results = await insertEach(documentsOf<DeadLetterDocument>(this.model), letters);
    const failed = results.find((r) => r !== undefined && !isDuplicateKeyError(r));
    if (failed) throw failed;
  }

  /** Deletes dead letters older than `before`, `batch` at a time; answers how many went. */
  async prune(before: Date, batch = DEAD_LETTER_PRUNE_BATCH): Promise<number> {
    let deleted = 0;
    for (;;) {
      const expired = await this.model
        .find({ dead_at: { $lt: before } }, { _id: 1 })
        .sort({ dead_at: 1, _id: 1 })
        .limit(batch)
        .lean();
      if (expired.length === 0) return deleted;
      const result = await this.model.deleteMany({ _id: { $in: expired.map((d) => d._id) } });
      deleted += result.deletedCount;
      if (expired.length < batch) return deleted;
    }
  }
}
