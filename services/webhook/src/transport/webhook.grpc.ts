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

/** The webhook as callers see it: without its tenant and secrets, dates as ISO strings. */
function toWebhook(webhook: Webhook): webhookV1.Webhook {
  const { tenantId: _tenantId, signingSecret: _signingSecret, previousSecrets: _previousSecrets, ...shown } = webhook;
  return {
    ...shown,
    createdAt: shown.createdAt.toISOString(),
    updatedAt: shown.updatedAt.toISOString(),
    failedAt: shown.failedAt?.toISOString(),
  };
}

/** The delivery as callers see it: without its tenant and attempts; the next attempt only while pending. */
function toDelivery(delivery: Delivery): webhookV1.Delivery {
  const { tenantId: _tenantId, roundAttempts: _roundAttempts, attemptLog: _attemptLog, ...shown } = delivery;
  return {
    ...shown,
    createdAt: shown.createdAt.toISOString(),
    deliveredAt: shown.deliveredAt?.toISOString(),
    nextAttemptAt: shown.status === 'pending' ? shown.nextAttemptAt?.toISOString() : undefined,
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
      const result = await listWebhooks(deps, request);
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
      await deleteWebhook(deps, request);
      return { success: true };
    },
    async rotateSecret(request) {
      const result = await rotateSecret(deps, request);
      return {
        id: result.id,
        signingSecret: result.signingSecret,
        previousSecretExpiresAt: result.previousSecretExpiresAt.toISOString(),
      };
    },
    async testWebhook(request) {
      return testWebhook(deps, request);
    },
    async listDeliveries(request) {
      const items = await listDeliveries(deps, request);
      return { items: items.map(toDelivery) };
    },
    async getDelivery(request) {
      const delivery = await getDelivery(deps, request);
      return {
        delivery: toDelivery(delivery),
        attempts: delivery.attemptLog.map((a) => ({ ...a, attemptedAt: a.attemptedAt.toISOString() })),
      };
    },
    async redeliver(request) {
      return toDelivery(await redeliver(deps, request));
    },
    async recover(request) {
      return recover(deps, request);
    },
  };
}
