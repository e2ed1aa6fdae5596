import { createAccessEvent } from '@agentplatform/events/catalogue';
import type { EventOutbox, SigningKeyMarks } from './ports.js';

/**
 * Marks a signing key withdrawn and, in the same outbox write, tells every gateway replica to
 * stop trusting it (docs/design.md section 4). Of several identity replicas noticing it, one marks it
 * and announces it.
 */
export async function announceWithdrawnKey(
  deps: { outbox: EventOutbox; signingKeys: SigningKeyMarks },
  kid: string,
): Promise<void> {
  await deps.outbox.run(async (session) => {
    const marked = await deps.signingKeys.markWithdrawn(kid, new Date(), session);
    return {
      result: undefined,
      events: marked ? [createAccessEvent('access.signing_key.withdrawn', '', { kid })] : [],
    };
  });
}
