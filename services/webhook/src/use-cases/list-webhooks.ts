import { paging } from '@agentplatform/service-kit';
import type { Webhook } from '../domain/types.js';
import type { UseCaseDeps } from './deps.js';

export async function listWebhooks(
  deps: UseCaseDeps,
  input: { tenantId: string; page?: number; perPage?: number },
): Promise<{ items: Webhook[]; total: number; page: number; perPage: number }> {
  const { page, perPage, skip } = paging(input.page, input.perPage);
  const { items, total } = await deps.webhooks.list(input.tenantId, skip, perPage);
  return { items, total, page, perPage };
}
