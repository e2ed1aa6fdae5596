import type { GraceSecret } from './secrets.js';

export const WEBHOOK_STATUSES = ['active', 'failed', 'disabled'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface Webhook {
  id: string;
  tenantId: string;
  url: string;
  events: string[];
  status: WebhookStatus;
  metadata: Record<string, unknown>;
  signingSecret: string;
  previousSecrets: GraceSecret[];
  createdAt: Date;
  updatedAt: Date;
  failedAt?: Date;
  failureReason?: string;
}

/** What one HTTP attempt produced. */
export interface AttemptResult {
  number: number;
  attemptedAt: Date;
  durationMs: number;
  responseStatus?: number;
  responseHeaders: Record<string, string>;
  /** The first 4 KiB of the response body. */
  responseBody?: string;
  error?: string;
  success: boolean;
}

export interface Delivery {
  id: string;
  tenantId: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  test: boolean;
  /** Total attempts, across redeliveries. */
  attempts: number;
  /** Attempts in the current schedule (reset by redeliver and recover). */
  roundAttempts: number;
  attemptLog: AttemptResult[];
  nextAttemptAt?: Date;
  responseStatus?: number;
  responseTimeMs?: number;
  deliveredAt?: Date;
  lastError?: string;
  createdAt: Date;
}
