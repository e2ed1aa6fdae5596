import { hash } from 'node:crypto';

/**
 * Hex SHA-256 of a text. Secrets with enough entropy to rule out guessing (API keys, refresh and
 * access tokens) are stored and cached under it: a slow hash would only add latency to every request.
 * `crypto.hash` (Node >= 20.12) hashes in one call, without the Hash object `createHash` builds:
 * the gateway hashes the credential of every request to look it up in its caches.
 */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}
