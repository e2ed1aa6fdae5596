import { createHash } from 'node:crypto';

/**
 * Hex SHA-256 of a text. Secrets with enough entropy to rule out guessing (API keys, refresh and
 * access tokens) are stored and cached under it: a slow hash would only add latency to every request.
 */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}
