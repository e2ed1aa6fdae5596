import type { Webhook } from '../domain/types.js';
import type { UseCaseDeps } from './deps.js';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export async function listWebhooks(
  deps: UseCaseDeps,
  input: { tenantId: string; page?: number; perPage?: number },
): Promise<{ items: Webhook[]; total: number; page: number; perPage: number }> {
  const page = Math.max(1, input.page || 1);
  const perPage = Math.min(MAX_PAGE_SIZE, Math.max(1, input.perPage || DEFAULT_PAGE_SIZE));
  const { items, total } = await deps.webhooks.list(input.tenantId, (page - 1) * perPage, perPage);
  return { items, total, page, perPage };
}
