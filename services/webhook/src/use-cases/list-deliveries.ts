import { paging, ValidationError } from '@agentplatform/service-kit';
import { DELIVERY_STATUSES, type Delivery, type DeliveryStatus } from '../domain/types.js';
import { requireWebhook, type UseCaseDeps } from './deps.js';

/** A webhook's delivery log, newest first. */
export async function listDeliveries(
  deps: UseCaseDeps,
  input: { tenantId: string; webhookId: string; limit?: number; status?: string },
): Promise<Delivery[]> {
  if (input.status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(input.status)) {
    throw ValidationError.field('status', `must be one of ${DELIVERY_STATUSES.join(', ')}`);
  }
  await requireWebhook(deps, input.tenantId, input.webhookId);
  const limit = paging(1, input.limit).perPage;
  return deps.deliveries.list(input.tenantId, input.webhookId, limit, input.status as DeliveryStatus | undefined);
}
