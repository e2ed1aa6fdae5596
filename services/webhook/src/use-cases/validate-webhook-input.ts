import type { FieldIssue } from '@agentplatform/service-kit';
import { urlProblem } from '../domain/address-policy.js';
import { normalizeSubscriptions, subscriptionIssues } from '../domain/event-matching.js';
import { secretProblem } from '../domain/secrets.js';

const MAX_METADATA_BYTES = 8 * 1024;

/** Field problems of a webhook's url, events, secret and metadata (each only when given). */
export function webhookInputIssues(
  input: { url?: string; events?: string[]; secret?: string; metadata?: Record<string, unknown> },
  allowPrivateUrls: boolean,
): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (input.url !== undefined) {
    const problem = urlProblem(input.url, allowPrivateUrls);
    if (problem) issues.push({ field: 'url', message: problem });
  }
  if (input.events !== undefined) issues.push(...subscriptionIssues(normalizeSubscriptions(input.events)));
  if (input.secret !== undefined) {
    const problem = secretProblem(input.secret);
    if (problem) issues.push({ field: 'secret', message: problem });
  }
  if (input.metadata !== undefined && Buffer.byteLength(JSON.stringify(input.metadata)) > MAX_METADATA_BYTES) {
    issues.push({ field: 'metadata', message: `must be at most ${MAX_METADATA_BYTES} bytes as JSON` });
  }
  return issues;
}
