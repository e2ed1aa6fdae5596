import { NotFoundError } from '@agentplatform/service-kit';
import type { UseCaseDeps } from './deps.js';

/** Deletes a webhook and its delivery log; pending retries of it are dropped. */
export async function deleteWebhook(deps: UseCaseDeps, input: { tenantId: string; id: string }): Promise<void> {
  const deleted = await deps.webhooks.delete(input.tenantId, input.id);
  if (!deleted) throw new NotFoundError('Webhook');
  await deps.quotas.release(input.tenantId, 'webhooks');
  await deps.deliveries.deleteForWebhook(input.tenantId, input.id);
}
