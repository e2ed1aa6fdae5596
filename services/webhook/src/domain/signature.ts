import { createHmac } from 'node:crypto';

/** The Standard Webhooks prefix of a base64-serialized secret. */
export const STANDARD_SECRET_PREFIX = 'whsec_';

/**
 * The Standard Webhooks HMAC key: a `whsec_<base64>` secret is used as its decoded bytes (what the
 * Standard Webhooks libraries do); any other secret as its UTF-8 bytes (the libraries' "raw" format).
 */
export function standardWebhooksKey(secret: string): Buffer {
  if (secret.startsWith(STANDARD_SECRET_PREFIX))
    return Buffer.from(secret.slice(STANDARD_SECRET_PREFIX.length), 'base64');
  return Buffer.from(secret, 'utf8');
}

export interface SignatureInput {
  /** The exact bytes sent as the request body. */
  body: string;
  /** The event id: the Standard Webhooks message id, the same on every attempt. */
  messageId: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
  /** Current secret first, then secrets still in their rotation grace period. */
  secrets: readonly string[];
}

/**
 * The signature headers of one attempt:
 * - `X-Service-Signature: t=<t>,v1=<hex>[,v1=<hex>...]`, hex HMAC-SHA256 of `<t>.<body>` keyed with
 *   the UTF-8 bytes of each signing secret (docs/webhooks.md, "Sending");
 * - `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>[ v1,<base64>...]`, HMAC-SHA256 of
 *   `<id>.<t>.<body>` keyed as `standardWebhooksKey` says (Standard Webhooks 1.0).
 */
export function signatureHeaders({ body, messageId, timestamp, secrets }: SignatureInput): Record<string, string> {
  const t = String(timestamp);
  const service = secrets.map((secret) => `v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`);
  const standard = secrets.map(
    (secret) =>
      `v1,${createHmac('sha256', standardWebhooksKey(secret)).update(`${messageId}.${t}.${body}`).digest('base64')}`,
  );
  return {
    'x-service-signature': [`t=${t}`, ...service].join(','),
    'webhook-id': messageId,
    'webhook-timestamp': t,
    'webhook-signature': standard.join(' '),
  };
}
