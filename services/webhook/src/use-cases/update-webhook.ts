import { NotFoundError, ValidationError } from '@agentplatform/service-kit';
import { normalizeSubscriptions } from '../domain/event-matching.js';
import type { Webhook } from '../domain/types.js';
import type { UseCaseDeps } from './deps.js';
import { webhookInputIssues } from './validate-webhook-input.js';

/** Statuses a caller may set: `active` (also re-enables a failed webhook) and `disabled`. */
const SETTABLE_STATUSES = ['active', 'disabled'] as const;

export interface UpdateWebhookInput {
  tenantId: string;
  id: string;
  url?: string;
  events?: string[];
  metadata?: Record<string, unknown>;
  status?: string;
}

export async function updateWebhook(deps: UseCaseDeps, input: UpdateWebhookInput): Promise<Webhook> {
  const issues = webhookInputIssues(input, deps.settings.allowPrivateUrls);
  if (input.status !== undefined && !(SETTABLE_STATUSES as readonly string[]).includes(input.status)) {
    issues.push({ field: 'status', message: `must be one of ${SETTABLE_STATUSES.join(', ')}` });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  const updated = await deps.webhooks.update(input.tenantId, input.id, {
    url: input.url,
    events: input.events === undefined ? undefined : normalizeSubscriptions(input.events),
    metadata: input.metadata,
    status: input.status as (typeof SETTABLE_STATUSES)[number] | undefined,
  });
  if (!updated) throw new NotFoundError('Webhook');
  return updated;
}
