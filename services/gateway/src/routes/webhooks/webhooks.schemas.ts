import { EVENT_TYPES } from '@agentplatform/events';
import { z } from 'zod';
import { limitParam, pageParams } from '../../http/paging.js';

/*
 * Shapes only: the webhook service is the authority on URLs (http(s), no private addresses),
 * event names (types, dotted prefixes, `*`, aliases) and secrets, and names the field it refuses.
 */
const metadata = z.record(z.string(), z.unknown()).describe('Free-form keys, at most 8 KiB as JSON');
const events = z
  .array(z.string().max(200))
  .max(50)
  .describe('Event types, dotted prefixes of them (agent.message), "*", or the alias workflow.completed');

export const webhookParams = z.object({ webhook_id: z.string().min(1) });
export const deliveryParams = z.object({ webhook_id: z.string().min(1), delivery_id: z.string().min(1) });

export const listWebhooksQuery = z.object({
  ...pageParams,
});

export const createWebhookBody = z.object({
  url: z.string().max(2048).describe('http(s) URL that receives the deliveries'),
  events,
  secret: z
    .string()
    .optional()
    .describe('Signing secret (16 to 256 printable characters); absent: a whsec_ secret is generated'),
  metadata: metadata.optional(),
});

export const updateWebhookBody = z.object({
  url: z.string().max(2048).optional(),
  events: events.optional(),
  metadata: metadata.optional(),
  status: z.enum(['active', 'disabled']).optional().describe('active re-enables a failed webhook; disabled pauses it'),
});

export const rotateSecretBody = z.object({
  secret: z.string().optional().describe('The new secret; absent: a whsec_ secret is generated'),
});

export const testWebhookBody = z.object({
  event_type: z.string().describe('One of the event types (docs/api-guide.md, "Events and webhooks")'),
});

export const listDeliveriesQuery = z.object({
  limit: limitParam,
  status: z.enum(['pending', 'delivered', 'failed']).optional(),
});

export const recoverBody = z.object({
  since: z.string().describe('ISO 8601 timestamp: failed deliveries and missed events since then are sent again'),
});

export const webhookResponse = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  status: z.enum(['active', 'failed', 'disabled']),
  metadata,
  created_at: z.string(),
  updated_at: z.string(),
  failed_at: z.string().nullable(),
  failure_reason: z.string().nullable(),
});

export const createdWebhookResponse = webhookResponse.extend({
  signing_secret: z.string().describe('Shown only here'),
});

export const webhookListResponse = z.object({
  items: z.array(webhookResponse),
  total: z.number().int(),
  page: z.number().int(),
  per_page: z.number().int(),
});

export const rotateSecretResponse = z.object({
  id: z.string(),
  signing_secret: z.string(),
  previous_secret_expires_at: z.string(),
});

export const testWebhookResponse = z.object({
  success: z.boolean(),
  delivery_id: z.string(),
  event_id: z.string(),
  response_status: z.number().int().nullable(),
  response_time_ms: z.number().int(),
  error: z.string().nullable(),
});

export const deliveryResponse = z.object({
  id: z.string(),
  webhook_id: z.string(),
  event_id: z.string(),
  event_type: z.enum(EVENT_TYPES),
  status: z.enum(['pending', 'delivered', 'failed']),
  response_status: z.number().int().nullable(),
  response_time_ms: z.number().int().nullable(),
  attempts: z.number().int(),
  delivered_at: z.string().nullable(),
  created_at: z.string(),
  next_attempt_at: z.string().nullable(),
  last_error: z.string().nullable(),
  test: z.boolean(),
});

export const deliveryDetailResponse = deliveryResponse.extend({
  attempt_log: z.array(
    z.object({
      number: z.number().int(),
      attempted_at: z.string(),
      duration_ms: z.number().int(),
      response_status: z.number().int().nullable(),
      response_headers: z.record(z.string(), z.string()),
      response_body: z.string().nullable().describe('The first 4 KiB'),
      error: z.string().nullable(),
      success: z.boolean(),
    }),
  ),
});

export const deliveryListResponse = z.object({ items: z.array(deliveryResponse) });

export const recoverResponse = z.object({
  redelivered: z.number().int().describe('Failed deliveries queued again'),
  missed: z.number().int().describe('Events that got no delivery (webhook failed or disabled), now queued'),
});

export const deleteWebhookResponse = z.object({ success: z.boolean() });
