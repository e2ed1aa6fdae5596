import { newId } from '@agentplatform/service-kit';
import { API_VERSION } from './event-types.js';

/**
 * The envelope of either event family (platform events, access events) with a fresh, time-sortable
 * id. Internal: callers use the typed createEvent or createAccessEvent.
 */
export function newEnvelope<T extends string, D>(type: T, tenantId: string, data: D) {
  return {
    id: newId('evt'),
    type,
    created_at: new Date().toISOString(),
    data,
    tenant_id: tenantId,
    api_version: API_VERSION,
  };
}
