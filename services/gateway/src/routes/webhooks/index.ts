import type { webhookV1 } from '@agentplatform/contracts';
import { defineRoute, requireScope, type Route } from '../../http/route.js';
import { pageJson, pageOf } from '../../http/paging.js';
import type { RouteDeps } from '../deps.js';
import {
  createdWebhookResponse,
  createWebhookBody,
  deleteWebhookResponse,
  deliveryDetailResponse,
  deliveryListResponse,
  deliveryParams,
  deliveryResponse,
  listDeliveriesQuery,
  listWebhooksQuery,
  recoverBody,
  recoverResponse,
  rotateSecretBody,
  rotateSecretResponse,
  testWebhookBody,
  testWebhookResponse,
  updateWebhookBody,
  webhookListResponse,
  webhookParams,
  webhookResponse,
} from './webhooks.schemas.js';

function webhookJson(webhook: webhookV1.Webhook) {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    status: webhook.status,
    metadata: webhook.metadata ?? {},
    created_at: webhook.createdAt,
    updated_at: webhook.updatedAt,
    failed_at: webhook.failedAt ?? null,
    failure_reason: webhook.failureReason ?? null,
  };
}

function deliveryJson(delivery: webhookV1.Delivery) {
  return {
    id: delivery.id,
    webhook_id: delivery.webhookId,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    status: delivery.status,
    response_status: delivery.responseStatus ?? null,
    response_time_ms: delivery.responseTimeMs ?? null,
    attempts: delivery.attempts,
    delivered_at: delivery.deliveredAt ?? null,
    created_at: delivery.createdAt,
    next_attempt_at: delivery.nextAttemptAt ?? null,
    last_error: delivery.lastError ?? null,
    test: delivery.test,
  };
}

/** A test send waits for the endpoint (up to its 10 s limit), so its call gets more time. */
const TEST_SEND_DEADLINE_MS = 15_000;

/** The API reference (Webhooks) and docs/design.md section 8; decisions in docs/webhooks.md. */
export function webhookRoutes({ backends }: RouteDeps): Route[] {
  const webhooks = backends.webhook;
  const read = requireScope('webhooks:read');
  const write = requireScope('webhooks:write');
  return [
    defineRoute({
      method: 'get',
      path: '/webhooks',
      summary: 'List the tenant’s webhooks, newest first',
      tag: 'webhooks',
      access: read,
      query: listWebhooksQuery,
      response: webhookListResponse,
      handler: async ({ query, caller }) => {
        const out = await webhooks.listWebhooks({
          tenantId: caller.tenantId,
          ...pageOf(query),
        });
        return { items: out.items.map(webhookJson), ...pageJson(out) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/webhooks',
      summary: 'Create a webhook; its signing_secret is shown only in this answer',
      tag: 'webhooks',
      access: write,
      idempotent: true,
      body: createWebhookBody,
      example: {
        url: 'https://example.com/agent-platform/events',
        events: ['agent.message', 'workflow.completed'],
        metadata: { team: 'support' },
      },
      status: 201,
      response: createdWebhookResponse,
      handler: async ({ body, caller }) => {
        const out = await webhooks.createWebhook({
          tenantId: caller.tenantId,
          url: body.url,
          events: body.events,
          secret: body.secret,
          metadata: body.metadata,
          plan: caller.plan ?? '',
        });
        return { ...webhookJson(out.webhook!), signing_secret: out.signingSecret };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/webhooks/:webhook_id',
      summary: 'Get a webhook',
      tag: 'webhooks',
      access: read,
      params: webhookParams,
      response: webhookResponse,
      handler: async ({ params, caller }) =>
        webhookJson(await webhooks.getWebhook({ tenantId: caller.tenantId, id: params.webhook_id })),
    }),
    defineRoute({
      method: 'patch',
      path: '/webhooks/:webhook_id',
      summary: 'Update url, events, metadata or status (active re-enables a failed webhook)',
      tag: 'webhooks',
      access: write,
      params: webhookParams,
      body: updateWebhookBody,
      example: { events: ['*'], status: 'active' },
      response: webhookResponse,
      handler: async ({ params, body, caller }) =>
        webhookJson(
          await webhooks.updateWebhook({
            tenantId: caller.tenantId,
            id: params.webhook_id,
            url: body.url,
            events: body.events ? { events: body.events } : undefined,
            metadata: body.metadata,
            status: body.status,
          }),
        ),
    }),
    defineRoute({
      method: 'delete',
      path: '/webhooks/:webhook_id',
      summary: 'Delete a webhook and its delivery log',
      tag: 'webhooks',
      access: write,
      params: webhookParams,
      response: deleteWebhookResponse,
      handler: async ({ params, caller }) =>
        webhooks.deleteWebhook({ tenantId: caller.tenantId, id: params.webhook_id }),
    }),
    defineRoute({
      method: 'post',
      path: '/webhooks/:webhook_id/rotate-secret',
      summary: 'Replace the signing secret; the old one keeps signing for 24 h',
      tag: 'webhooks',
      access: write,
      params: webhookParams,
      body: rotateSecretBody,
      example: {},
      response: rotateSecretResponse,
      handler: async ({ params, body, caller }) => {
        const out = await webhooks.rotateSecret({
          tenantId: caller.tenantId,
          id: params.webhook_id,
          secret: body.secret,
        });
        return {
          id: out.id,
          signing_secret: out.signingSecret,
          previous_secret_expires_at: out.previousSecretExpiresAt,
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/webhooks/:webhook_id/test',
      summary: 'Send a sample event now and report the endpoint’s answer',
      tag: 'webhooks',
      access: write,
      params: webhookParams,
      body: testWebhookBody,
      example: { event_type: 'agent.message.completed' },
      response: testWebhookResponse,
      handler: async ({ params, body, caller }) => {
        const out = await webhooks.testWebhook(
          { tenantId: caller.tenantId, id: params.webhook_id, eventType: body.event_type },
          { deadline: TEST_SEND_DEADLINE_MS },
        );
        return {
          success: out.success,
          delivery_id: out.deliveryId,
          event_id: out.eventId,
          response_status: out.responseStatus ?? null,
          response_time_ms: out.responseTimeMs,
          error: out.error ?? null,
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/webhooks/:webhook_id/deliveries',
      summary: 'The delivery log, newest first',
      tag: 'webhooks',
      access: read,
      params: webhookParams,
      query: listDeliveriesQuery,
      response: deliveryListResponse,
      handler: async ({ params, query, caller }) => {
        const out = await webhooks.listDeliveries({
          tenantId: caller.tenantId,
          webhookId: params.webhook_id,
          limit: query.limit,
          status: query.status,
        });
        return { items: out.items.map(deliveryJson) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/webhooks/:webhook_id/deliveries/:delivery_id',
      summary: 'One delivery with every attempt',
      tag: 'webhooks',
      access: read,
      params: deliveryParams,
      response: deliveryDetailResponse,
      handler: async ({ params, caller }) => {
        const out = await webhooks.getDelivery({
          tenantId: caller.tenantId,
          webhookId: params.webhook_id,
          deliveryId: params.delivery_id,
        });
        return {
          ...deliveryJson(out.delivery!),
          attempt_log: out.attempts.map((a) => ({
            number: a.number,
            attempted_at: a.attemptedAt,
            duration_ms: a.durationMs,
            response_status: a.responseStatus ?? null,
            response_headers: a.responseHeaders,
            response_body: a.responseBody ?? null,
            error: a.error ?? null,
            success: a.success,
          })),
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/webhooks/:webhook_id/deliveries/:delivery_id/redeliver',
      errors: ['conflict'],
      summary: 'Send one delivery again with a fresh attempt schedule',
      tag: 'webhooks',
      access: write,
      params: deliveryParams,
      response: deliveryResponse,
      handler: async ({ params, caller }) =>
        deliveryJson(
          await webhooks.redeliver({
            tenantId: caller.tenantId,
            webhookId: params.webhook_id,
            deliveryId: params.delivery_id,
          }),
        ),
    }),
    defineRoute({
      method: 'post',
      path: '/webhooks/:webhook_id/recover',
      errors: ['conflict'],
      summary: 'Send again everything that failed, or was missed, since a time',
      tag: 'webhooks',
      access: write,
      params: webhookParams,
      body: recoverBody,
      example: { since: '2026-01-01T00:00:00Z' },
      response: recoverResponse,
      handler: async ({ params, body, caller }) =>
        webhooks.recover({ tenantId: caller.tenantId, webhookId: params.webhook_id, since: body.since }),
    }),
  ];
}
