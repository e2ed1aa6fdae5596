import { Schema, type Connection, type Model } from 'mongoose';
import type { DeliveryStatus } from '../domain/types.js';

export interface AttemptDocument {
  number: number;
  attempted_at: Date;
  duration_ms: number;
  response_status?: number | null;
  response_headers: Record<string, string>;
  response_body?: string | null;
  error?: string | null;
  success: boolean;
}

export interface DeliveryDocument {
  _id: string;
  tenant_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  test: boolean;
  // The exact request body every attempt sends (the event's JSON): one string, so neither this
  // service nor the database takes the event apart again on each write of the delivery.
  body?: string | null;
  /** The W3C trace context of the event's consumption (tracing on): every attempt is a span under it. */
  traceparent?: string | null;
  attempts: number;
  round_attempts: number;
  attempt_log: AttemptDocument[];
  next_attempt_at: Date | null;
  // A replica sends a delivery only while it holds the lease; Date(0) means free.
  lease_until: Date;
  // The holder's token while leased; a fresh `free:` token on every write that frees the lease
  // (null in deliveries stored by older releases).
  lease_token: string | null;
  response_status: number | null;
  response_time_ms: number | null;
  delivered_at: Date | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
}

const deliverySchema = new Schema<DeliveryDocument>(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    webhook_id: { type: String, required: true },
    event_id: { type: String, required: true },
    event_type: { type: String, required: true },
    status: { type: String, required: true },
    test: { type: Boolean, default: false },
    body: String,
    traceparent: String,
    attempts: { type: Number, default: 0 },
    round_attempts: { type: Number, default: 0 },
    attempt_log: { type: Schema.Types.Mixed, default: [] },
    next_attempt_at: Date,
    lease_until: { type: Date, required: true },
    lease_token: String,
    response_status: Number,
    response_time_ms: Number,
    delivered_at: Date,
    last_error: String,
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'deliveries', versionKey: false, minimize: false },
);
// One delivery per webhook and event is enforced by `_id`, which is derived from the pair (see
// domain/delivery-id.ts); this index serves lookups by event. It is not unique on purpose: a second
// unique index would repeat the `_id` check, and on the local MongoDB stand-in every unique index
// costs several lookups on each insert and update of a delivery. Named, so a database that still
// has the former unique index of the same keys keeps it instead of failing the index build.
deliverySchema.index({ webhook_id: 1, event_id: 1 }, { name: 'webhook_event_lookup' });
// The pending deliveries, read once at start to give each its due entry (delivery-due.schema.ts
// holds what the retry poller pages through).
deliverySchema.index({ status: 1, tenant_id: 1, next_attempt_at: 1 });
// Claims (a compare-and-set of the token as read), outcomes, releases and redeliveries write with
// a filter on exactly {_id, lease_token}: redundant for MongoDB, an index lookup instead of a scan
// of every delivery on the local stand-in, which uses an index only when its keys equal the query's.
deliverySchema.index({ _id: 1, lease_token: 1 }, { unique: true });
// The delivery log, newest first, and recovery by time.
deliverySchema.index({ tenant_id: 1, webhook_id: 1, _id: -1 });
// Retention (WEBHOOK_DELIVERY_RETENTION_DAYS): the pruner takes the oldest first, in batches. Not a
// TTL index: the stand-in never expires documents, and a TTL would ignore the variable. (Databases
// created before may still have the TTL index `created_at_1`: docs/operations.md says when to drop it.)
deliverySchema.index({ created_at: 1, _id: 1 }, { unique: true });

export function deliveryModel(connection: Connection): Model<DeliveryDocument> {
  return (connection.models.Delivery as Model<DeliveryDocument>) ?? connection.model('Delivery', deliverySchema);
}
