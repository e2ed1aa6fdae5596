import { Schema, type Connection, type Model } from 'mongoose';
import type { DeliveryStatus } from '../domain/types.js';

export interface AttemptRecord {
  number: number;
  attempted_at: Date;
  duration_ms: number;
  response_status?: number | null;
  response_headers: Record<string, string>;
  response_body?: string | null;
  error?: string | null;
  success: boolean;
}

export interface DeliveryRecord {
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
  attempt_log: AttemptRecord[];
  next_attempt_at: Date | null;
  // A replica sends a delivery only while it holds the lease; Date(0) means free.
  lease_until: Date;
  lease_token: string | null;
  response_status: number | null;
  response_time_ms: number | null;
  delivered_at: Date | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
}

/** Deliveries and their attempt logs are kept this long. */
export const DELIVERY_RETENTION_SECONDS = 30 * 24 * 3600;

const deliverySchema = new Schema<DeliveryRecord>(
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
// The retry poller: the tenants with due pending deliveries, then each tenant's, the longest due
// first. With the tenant before the time, one tenant's backlog of due work is never scanned while
// claiming another's. (It replaces { status: 1, next_attempt_at: 1 }, which a database created
// before may still have: docs/webhooks.md says how to drop it.)
deliverySchema.index({ status: 1, tenant_id: 1, next_attempt_at: 1 });
// The delivery log, newest first, and recovery by time.
deliverySchema.index({ tenant_id: 1, webhook_id: 1, _id: -1 });
deliverySchema.index({ created_at: 1 }, { expireAfterSeconds: DELIVERY_RETENTION_SECONDS });

export function deliveryModel(connection: Connection): Model<DeliveryRecord> {
  return (connection.models.Delivery as Model<DeliveryRecord>) ?? connection.model('Delivery', deliverySchema);
}
