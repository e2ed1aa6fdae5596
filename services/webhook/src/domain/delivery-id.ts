import { createHash } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const MAX_TIME = 2 ** 48 - 1;

/** `length` Crockford base32 characters of `value` (an integer below 2^53), most significant first. */
function encodeTime(value: number, length: number): string {
  let out = '';
  for (let i = 0; i < length; i += 1) {
    out = CROCKFORD[value % 32] + out;
    value = Math.floor(value / 32);
  }
  return out;
}

/** The first `length` base32 characters of a byte string (5 bits each). */
function encodeBytes(bytes: Buffer, length: number): string {
  let out = '';
  let bits = 0;
  let buffer = 0;
  for (let i = 0; out.length < length;) {
    if (bits < 5) {
      buffer = (buffer << 8) | bytes[i++]!;
      bits += 8;
    }
    out += CROCKFORD[(buffer >> (bits - 5)) & 31];
    bits -= 5;
  }
  return out;
}

/**
 * The id of the delivery of one event to one webhook: a function of the pair, so the one
 * delivery per (webhook, event) is enforced by the `_id` itself, the only unique key every
 * MongoDB (including the local stand-in, where each extra unique index costs several lookups per
 * write) checks on every insert anyway. A Kafka redelivery, a rebalance, a second replica or a
 * recovery all compute the same id and the second insert is refused.
 *
 * Shaped like every other id (`dlv_` + 26 characters of a ULID) and, like one, sortable by time:
 * the time part is the event's `created_at`, so the delivery log lists newest events first; the
 * rest is a SHA-256 of the pair, not random.
 */
export function deliveryIdFor(webhookId: string, eventId: string, eventCreatedAt: string): string {
  const parsed = Date.parse(eventCreatedAt);
  const time = Number.isFinite(parsed) ? Math.min(Math.max(parsed, 0), MAX_TIME) : 0;
  const digest = createHash('sha256').update(`${webhookId}\n${eventId}`).digest();
  return `dlv_${encodeTime(time, 10)}${encodeBytes(digest, 16)}`;
}
