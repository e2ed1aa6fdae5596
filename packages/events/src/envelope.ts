import {
  EVENT_TYPE_MAX_LENGTH,
  EVENT_TYPE_PATTERN,
  type EventData,
  type EventEnvelope,
  type EventType,
  type ReceivedEnvelope,
} from './event-types.js';
import { newEnvelope } from './new-envelope.js';

/** Builds a new event with a fresh, time-sortable id. */
export function createEvent<T extends EventType>(type: T, tenantId: string, data: EventData[T]): EventEnvelope<T> {
  return newEnvelope(type, tenantId, data);
}

/**
 * Parses a Kafka message value into an envelope, or undefined when it is not one. Any well-formed
 * type is accepted, known or not (see EVENT_TYPE_PATTERN): deciding what an unknown type means is
 * the consumer's business, and dropping it here would lose events a newer service published.
 */
export function parseEnvelope(raw: Buffer | string | null): ReceivedEnvelope | undefined {
  if (raw === null) return undefined;
  try {
    const value = JSON.parse(raw.toString()) as Partial<ReceivedEnvelope>;
    if (
      typeof value.id === 'string' &&
      typeof value.type === 'string' &&
      value.type.length <= EVENT_TYPE_MAX_LENGTH &&
      EVENT_TYPE_PATTERN.test(value.type) &&
      typeof value.tenant_id === 'string' &&
      typeof value.created_at === 'string' &&
      typeof value.data === 'object' &&
      value.data !== null
    ) {
      return value as ReceivedEnvelope;
    }
  } catch {
    // not JSON: reported by the caller as an unreadable message
  }
  return undefined;
}
