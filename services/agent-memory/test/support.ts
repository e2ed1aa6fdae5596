import { identityClient, type Platform } from '@agentplatform/testing';

export { EventTap, createApiKey, identityClient, newTenant, type Http } from '@agentplatform/testing';

/** Brings a new tenant's balance (1,000 welcome credits) down to `balance`, through identity. */
export async function drainTo(platform: Platform, tenantId: string, balance: number): Promise<void> {
  const identity = identityClient(platform);
  try {
    await identity.client.charge({
      tenantId,
      amount: 1000 - balance,
      idempotencyKey: `drain-${tenantId}`,
      description: 'test: drain',
    });
  } finally {
    identity.channel.close();
  }
}

/** Parses a server-sent event stream into its events. */
export function parseSse(text: string): Array<{ event: string; data: any }> {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const event =
        lines
          .find((l) => l.startsWith('event:'))
          ?.slice(6)
          .trim() ?? 'message';
      const data = lines
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .join('\n');
      return { event, data: JSON.parse(data) };
    });
}
