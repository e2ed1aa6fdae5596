import { createHmac, timingSafeEqual } from 'node:crypto';

/** Why a webhook delivery was rejected. */
export type WebhookSignatureFailure =
  'missing_header' | 'malformed_header' | 'timestamp_out_of_tolerance' | 'signature_mismatch';

export class WebhookSignatureError extends Error {
  constructor(
    readonly reason: WebhookSignatureFailure,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookSignatureError';
  }
}

/** The parts of an `X-Service-Signature` header: `t=<unix seconds>,v1=<hex>[,v1=<hex>...]`. */
export interface ParsedSignatureHeader {
  timestamp: number;
  signatures: string[];
}

export function parseSignatureHeader(header: string): ParsedSignatureHeader {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const index = part.indexOf('=');
    if (index <= 0) continue;
    const key = part.slice(0, index).trim();
    const value = part.slice(index + 1).trim();
    if (key === 't' && /^\d+$/.test(value)) timestamp = Number(value);
    if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(value.toLowerCase());
  }
  if (timestamp === undefined || signatures.length === 0) {
    throw new WebhookSignatureError('malformed_header', 'Signature header must look like t=<unix seconds>,v1=<hex>');
  }
  return { timestamp, signatures };
}

function toBuffer(rawBody: string | Uint8Array): Buffer {
  return typeof rawBody === 'string'
    ? Buffer.from(rawBody, 'utf8')
    : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
}

/** Hex HMAC-SHA256 of `<timestamp>.<raw body>` keyed with the secret's UTF-8 bytes. */
export function computeSignature(rawBody: string | Uint8Array, secret: string, timestamp: number): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(toBuffer(rawBody)).digest('hex');
}

/** An `X-Service-Signature` value for a body, as the platform sends it (for tests of a receiver). */
export function signWebhookPayload(
  rawBody: string | Uint8Array,
  secret: string | readonly string[],
  timestamp = Math.floor(Date.now() / 1000),
): string {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${computeSignature(rawBody, s, timestamp)}`)].join(',');
}

function constantTimeEqualHex(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Checks an `X-Service-Signature` header against the raw request body and throws a
 * `WebhookSignatureError` when it does not hold. Pass the body exactly as received (before any
 * JSON parsing). `secret` may list several secrets (yours during a rotation); the header may carry
 * several `v1=` entries (the platform's during one). Any pair matching is enough; comparisons run
 * in constant time. The timestamp must be within `toleranceSeconds` of now.
 */
export function assertWebhookSignature(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secret: string | readonly string[],
  toleranceSeconds = 300,
  now: number = Date.now(),
): ParsedSignatureHeader {
  if (!header) throw new WebhookSignatureError('missing_header', 'No X-Service-Signature header');
  const parsed = parseSignatureHeader(header);
  if (Math.abs(Math.floor(now / 1000) - parsed.timestamp) > toleranceSeconds) {
    throw new WebhookSignatureError(
      'timestamp_out_of_tolerance',
      `Signature timestamp is more than ${toleranceSeconds} s from now`,
    );
  }
  const secrets = typeof secret === 'string' ? [secret] : secret;
  let matched = false;
  for (const candidate of secrets) {
    const expected = computeSignature(rawBody, candidate, parsed.timestamp);
    // Every entry is compared, so the time taken does not reveal which one matched.
    for (const signature of parsed.signatures) matched = constantTimeEqualHex(expected, signature) || matched;
  }
  if (!matched) throw new WebhookSignatureError('signature_mismatch', 'No signature matches the body and secret');
  return parsed;
}

/** True when the header is a valid signature of the body under the secret and recent enough. */
export function verifyWebhookSignature(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secret: string | readonly string[],
  toleranceSeconds = 300,
): boolean {
  try {
    assertWebhookSignature(rawBody, header, secret, toleranceSeconds);
    return true;
  } catch (error) {
    if (error instanceof WebhookSignatureError) return false;
    throw error;
  }
}

/** Verifies the signature, then parses the body: the usual first step of a receiver. */
export function constructWebhookEvent<T = import('./types.js').WebhookEvent>(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secret: string | readonly string[],
  toleranceSeconds = 300,
): T {
  assertWebhookSignature(rawBody, header, secret, toleranceSeconds);
  return JSON.parse(toBuffer(rawBody).toString('utf8')) as T;
}
