import { newId, ValidationError } from '@agentplatform/service-kit';
import { normalizeSubscriptions } from '../domain/event-matching.js';
import { generateSecret } from '../domain/secrets.js';
import type { Webhook } from '../domain/types.js';
import type { UseCaseDeps } from './deps.js';
import { webhookInputIssues } from './validate-webhook-input.js';

export interface CreateWebhookInput {
  tenantId: string;
  url: string;
  events: string[];
  secret?: string;
  metadata?: Record<string, unknown>;
  /** The tenant's plan: it sets the webhook quota. */
  plan?: string;
}

/** Creates an active webhook; the signing secret is the given one or a generated whsec_ value. */
export async function createWebhook(
  deps: UseCaseDeps,
  input: CreateWebhookInput,
): Promise<{ webhook: Webhook; signingSecret: string }> {
  const issues = webhookInputIssues(input, deps.settings.allowPrivateUrls);
  if (issues.length > 0) throw new ValidationError(issues);
  const now = new Date();
  const signingSecret = input.secret ?? generateSecret();
  const webhook: Webhook = {
    id: newId('wh'),
    tenantId: input.tenantId,
    url: input.url,
    events: normalizeSubscriptions(input.events),
    status: 'active',
    metadata: input.metadata ?? {},
    signingSecret,
    previousSecrets: [],
    createdAt: now,
    updatedAt: now,
  };
  const release = await deps.quotas.acquire(input.tenantId, 'webhooks', input.plan, () =>
    deps.webhooks.count(input.tenantId),
  );
  try {
    // The window before the webhook: a crash in between leaves an empty window of no webhook,
    // never a webhook whose deliveries must be looked for.
    await deps.deliveries.openWebhook(webhook.id);
    await deps.webhooks.create(webhook);
  } catch (error) {
    await release();
    throw error;
  }
  return { webhook, signingSecret };
}
