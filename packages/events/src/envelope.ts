import { newId } from '@agentplatform/service-kit';
import { API_VERSION, isEventType, type EventData, type EventEnvelope, type EventType } from './event-types.js';

/** Builds a new event with a fresh, time-sortable id. */
export function createEvent<T extends EventType>(type: T, tenantId: string, data: EventData[T]): EventEnvelope<T> {
  return {
    id: newId('evt'),
    type,
    created_at: new Date().toISOString(),
    data,
    tenant_id: tenantId,
    api_version: API_VERSION,
  };
}

/** Parses a Kafka message value into an envelope, or undefined when it is not one. */
export function parseEnvelope(raw: Buffer | string | null): EventEnvelope | undefined {
  if (raw === null) return undefined;
  try {
    const value = JSON.parse(raw.toString()) as Partial<EventEnvelope>;
    if (
      typeof value.id === 'string' &&
      typeof value.type === 'string' &&
      isEventType(value.type) &&
      typeof value.tenant_id === 'string' &&
      typeof value.created_at === 'string' &&
      typeof value.data === 'object' &&
      value.data !== null
    ) {
      return value as EventEnvelope;
    }
  } catch {
    // not JSON: reported by the caller as an unreadable message
  }
  return undefined;
}
