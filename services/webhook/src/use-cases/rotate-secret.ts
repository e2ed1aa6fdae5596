import { NotFoundError, ValidationError } from '@agentplatform/service-kit';
import { generateSecret, secretProblem } from '../domain/secrets.js';
import { requireWebhook, type UseCaseDeps } from './deps.js';

/** Previous secrets kept signing at once, so repeated rotations cannot grow headers without bound. */
const MAX_GRACE_SECRETS = 3;

/**
 * Replaces the signing secret. The old one keeps signing, as an extra `v1` entry in both
 * signature headers, for the grace period, so receivers can switch without dropping deliveries.
 */
export async function rotateSecret(
  deps: UseCaseDeps,
  input: { tenantId: string; id: string; secret?: string },
): Promise<{ id: string; signingSecret: string; previousSecretExpiresAt: Date }> {
  if (input.secret !== undefined) {
    const problem = secretProblem(input.secret);
    if (problem) throw ValidationError.field('secret', problem);
  }
  const webhook = await requireWebhook(deps, input.tenantId, input.id);
  const now = new Date();
  const expiresAt = new Date(now.getTime() + deps.settings.rotationGraceMs);
  const previous = [
    { secret: webhook.signingSecret, expires_at: expiresAt },
    ...webhook.previousSecrets.filter((p) => p.expires_at > now && p.secret !== webhook.signingSecret),
  ].slice(0, MAX_GRACE_SECRETS);
  const signingSecret = input.secret ?? generateSecret();
  const updated = await deps.webhooks.rotateSecret(input.tenantId, input.id, signingSecret, previous, now);
  if (!updated) throw new NotFoundError('Webhook');
  return { id: updated.id, signingSecret, previousSecretExpiresAt: expiresAt };
}
