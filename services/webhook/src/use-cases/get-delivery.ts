import { NotFoundError } from '@agentplatform/service-kit';
import type { Delivery } from '../domain/types.js';
import { requireWebhook, type UseCaseDeps } from './deps.js';

/** One delivery with every attempt. */
export async function getDelivery(
  deps: UseCaseDeps,
  input: { tenantId: string; webhookId: string; deliveryId: string },
): Promise<Delivery> {
  await requireWebhook(deps, input.tenantId, input.webhookId);
  const delivery = await deps.deliveries.find(input.tenantId, input.webhookId, input.deliveryId);
  if (!delivery) throw new NotFoundError('Delivery');
  return delivery;
}
