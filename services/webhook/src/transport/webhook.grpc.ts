import { webhookV1 } from '@agentplatform/contracts/webhook-v1';
import type { Delivery, Webhook } from '../domain/types.js';
import { createWebhook } from '../use-cases/create-webhook.js';
import { deleteWebhook } from '../use-cases/delete-webhook.js';
import { requireWebhook, type UseCaseDeps } from '../use-cases/deps.js';
import { getDelivery } from '../use-cases/get-delivery.js';
import { listDeliveries } from '../use-cases/list-deliveries.js';
import { listWebhooks } from '../use-cases/list-webhooks.js';
import { recover } from '../use-cases/recover.js';
import { redeliver } from '../use-cases/redeliver.js';
import { rotateSecret } from '../use-cases/rotate-secret.js';
import { testWebhook } from '../use-cases/test-webhook.js';
import { updateWebhook } from '../use-cases/update-webhook.js';

function toWebhook(webhook: Webhook): webhookV1.Webhook {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    status: webhook.status,
    metadata: webhook.metadata,
    createdAt: webhook.createdAt.toISOString(),
    updatedAt: webhook.updatedAt.toISOString(),
    failedAt: webhook.failedAt?.toISOString(),
    failureReason: webhook.failureReason,
  };
}

function toDelivery(delivery: Delivery): webhookV1.Delivery {
  return {
    id: delivery.id,
    webhookId: delivery.webhookId,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    status: delivery.status,
    responseStatus: delivery.responseStatus,
    responseTimeMs: delivery.responseTimeMs,
    attempts: delivery.attempts,
    deliveredAt: delivery.deliveredAt?.toISOString(),
    createdAt: delivery.createdAt.toISOString(),
    nextAttemptAt: delivery.status === 'pending' ? delivery.nextAttemptAt?.toISOString() : undefined,
    lastError: delivery.lastError,
    test: delivery.test,
  };
}

/** Maps the WebhookService contract to the use cases; nothing else happens here. */
export function webhookGrpcService(deps: UseCaseDeps): webhookV1.WebhookServiceImplementation {
  return {
    async createWebhook(request) {
      const { webhook, signingSecret } = await createWebhook(deps, {
        tenantId: request.tenantId,
        url: request.url,
        events: request.events,
        secret: request.secret,
        metadata: request.metadata,
        plan: request.plan,
      });
      return { webhook: toWebhook(webhook), signingSecret };
    },
    async listWebhooks(request) {
      const result = await listWebhooks(deps, {
        tenantId: request.tenantId,
        page: request.page,
        perPage: request.perPage,
      });
      return {
        items: result.items.map(toWebhook),
        total: result.total,
        page: result.page,
        perPage: result.perPage,
      };
    },
    async getWebhook(request) {
      return toWebhook(await requireWebhook(deps, request.tenantId, request.id));
    },
    async updateWebhook(request) {
      const webhook = await updateWebhook(deps, {
        tenantId: request.tenantId,
        id: request.id,
        url: request.url,
        events: request.events?.events,
        metadata: request.metadata,
        status: request.status,
      });
      return toWebhook(webhook);
    },
    async deleteWebhook(request) {
      await deleteWebhook(deps, { tenantId: request.tenantId, id: request.id });
      return { success: true };
    },
    async rotateSecret(request) {
      const result = await rotateSecret(deps, { tenantId: request.tenantId, id: request.id, secret: request.secret });
      return {
        id: result.id,
        signingSecret: result.signingSecret,
        previousSecretExpiresAt: result.previousSecretExpiresAt.toISOString(),
      };
    },
    async testWebhook(request) {
      return testWebhook(deps, { tenantId: request.tenantId, id: request.id, eventType: request.eventType });
    },
    async listDeliveries(request) {
      const items = await listDeliveries(deps, {
        tenantId: request.tenantId,
        webhookId: request.webhookId,
        limit: request.limit,
        status: request.status,
      });
      return { items: items.map(toDelivery) };
    },
    async getDelivery(request) {
      const delivery = await getDelivery(deps, {
        tenantId: request.tenantId,
        webhookId: request.webhookId,
        deliveryId: request.deliveryId,
      });
      return {
        delivery: toDelivery(delivery),
        attempts: delivery.attemptLog.map((a) => ({
          number: a.number,
          attemptedAt: a.attemptedAt.toISOString(),
          durationMs: a.durationMs,
          responseStatus: a.responseStatus,
          responseHeaders: a.responseHeaders,
          responseBody: a.responseBody,
          error: a.error,
          success: a.success,
        })),
      };
    },
    async redeliver(request) {
      return toDelivery(
        await redeliver(deps, {
          tenantId: request.tenantId,
          webhookId: request.webhookId,
          deliveryId: request.deliveryId,
        }),
      );
    },
    async recover(request) {
      return recover(deps, { tenantId: request.tenantId, webhookId: request.webhookId, since: request.since });
    },
  };
}
