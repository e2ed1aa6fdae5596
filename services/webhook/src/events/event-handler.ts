import type { EventEnvelope } from '@agentplatform/events';
import type { Logger } from '@agentplatform/service-kit';
import type { EventRepository } from '../persistence/event.repository.js';

/** What the dispatcher does with each event from Kafka. */
export function createEventHandler(events: EventRepository, logger: Logger) {
  return async (event: EventEnvelope): Promise<void> => {
    await events.record(event);
    logger.debug({ event_id: event.id, event_type: event.type, tenant_id: event.tenant_id }, 'event received');
  };
}
