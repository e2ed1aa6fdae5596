import type { webhookV1 } from '@agentplatform/contracts';
import { defineRoute, requireScope, type Route } from '../../http/route.js';
import { jsonFields, tenantRequest } from '../../http/json-fields.js';
import { itemsPage } from '../../http/paging.js';
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

const webhookJson = (webhook: webhookV1.Webhook) => ({
  ...jsonFields(webhook, ['id', 'url', 'events', 'status', 'created_at', 'updated_at', 'failed_at', 'failure_reason']),
  metadata: webhook.metadata ?? {},
});

const deliveryJson = (delivery: webhookV1.Delivery) =>
  jsonFields(delivery, [
    'id',
    'webhook_id',
    'event_id',
    'event_type',
    'status',
    'response_status',
    'response_time_ms',
    'attempts',
    'delivered_at',
    'created_at',
    'next_attempt_at',
    'last_error',
    'test',
  ]);

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
      handler: async ({ query, caller }) =>
        itemsPage(await webhooks.listWebhooks(tenantRequest(caller, query)), webhookJson),
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
        const out = await webhooks.createWebhook({ ...tenantRequest(caller, body), plan: caller.plan ?? '' });
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
            ...tenantRequest(caller, body),
            id: params.webhook_id,
            // Wrapped, so that no list (events unchanged) differs from a list given.
            events: body.events ? { events: body.events } : undefined,
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
        const out = await webhooks.rotateSecret({ ...tenantRequest(caller, body), id: params.webhook_id });
        return jsonFields(out, ['id', 'signing_secret', 'previous_secret_expires_at']);
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
          { ...tenantRequest(caller, body), id: params.webhook_id },
          { deadline: TEST_SEND_DEADLINE_MS },
        );
        return jsonFields(out, ['success', 'delivery_id', 'event_id', 'response_status', 'response_time_ms', 'error']);
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
        const out = await webhooks.listDeliveries(tenantRequest(caller, { ...params, ...query }));
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
        const out = await webhooks.getDelivery(tenantRequest(caller, params));
        return {
          ...deliveryJson(out.delivery!),
          attempt_log: out.attempts.map((attempt) =>
            jsonFields(attempt, [
              'number',
              'attempted_at',
              'duration_ms',
              'response_status',
              'response_headers',
              'response_body',
              'error',
              'success',
            ]),
          ),
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
      handler: async ({ params, caller }) => deliveryJson(await webhooks.redeliver(tenantRequest(caller, params))),
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
      handler: async ({ params, body, caller }) => webhooks.recover(tenantRequest(caller, { ...params, ...body })),
    }),
  ];
}
