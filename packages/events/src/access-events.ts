import { parseEnvelope } from './envelope.js';
import type { ReceivedEnvelope } from './event-types.js';
import { newEnvelope } from './new-envelope.js';

/**
 * Internal events about who may still call the API (docs/design.md section 4): identity publishes them,
 * every gateway replica consumes them and drops what it cached. They travel on their own topic
 * (`accessTopicOf`), which the webhook dispatcher never reads, so they are never delivered to a
 * customer's webhook, not even to a `*` subscription: their content (key ids, session ids, key
 * ids of the platform's signing keys) describes the platform, not the tenant's domain.
 */
const ACCESS_EVENT_TYPES = [
  'access.api_key.revoked',
  'access.session.revoked',
  'access.signing_key.withdrawn',
] as const;

export type AccessEventType = (typeof ACCESS_EVENT_TYPES)[number];

/** Data carried by each access event. */
export interface AccessEventData {
  /** A key was revoked (DELETE) or deleted; requests with it are 401 from now on. */
  'access.api_key.revoked': { key_id: string };
  /**
   * A refresh family (a login session) ended: logged out, or a rotated refresh token was used
   * again. Access tokens carry the family as their `sid` claim and stop working with it.
   */
  'access.session.revoked': { session_id: string; user_id: string; reason: 'reuse' | 'logout' };
  /** A signing key left the JWKS: tokens it signed are no longer accepted. */
  'access.signing_key.withdrawn': { kid: string };
}

export interface AccessEvent<T extends AccessEventType = AccessEventType> {
  id: string;
  type: T;
  created_at: string;
  data: AccessEventData[T];
  /** The tenant concerned, or '' for platform-wide changes (sessions, signing keys). */
  tenant_id: string;
  api_version: string;
}

/** The topic of access events beside a platform's events topic. */
export function accessTopicOf(eventsTopic: string): string {
  return `${eventsTopic}.access`;
}

export function isAccessEventType(value: string): value is AccessEventType {
  return (ACCESS_EVENT_TYPES as readonly string[]).includes(value);
}

/** An envelope of an access type carries that type's data: identity is their only publisher. */
function isAccessEvent(envelope: ReceivedEnvelope): envelope is ReceivedEnvelope & AccessEvent {
  return isAccessEventType(envelope.type);
}

export function createAccessEvent<T extends AccessEventType>(
  type: T,
  tenantId: string,
  data: AccessEventData[T],
): AccessEvent<T> {
  return newEnvelope(type, tenantId, data);
}

/** Parses a Kafka message value into an access event, or undefined when it is not one. */
export function parseAccessEvent(raw: Buffer | string | null): AccessEvent | undefined {
  const envelope = parseEnvelope(raw);
  return envelope && isAccessEvent(envelope) ? envelope : undefined;
}
