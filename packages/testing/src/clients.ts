import { identityV1, webhookV1 } from '@agentplatform/contracts';
import { createGrpcClient, openChannel } from '@agentplatform/service-kit';
import type { Platform } from './platform.js';

/** The platform's identity service over gRPC (tests drain a tenant's credits through it); close the channel after use. */
export function identityClient(platform: Platform) {
  const channel = openChannel(`127.0.0.1:${platform.service('identity').ready!.grpc_port}`);
  return { client: createGrpcClient(identityV1.IdentityServiceDefinition, channel, { deadlineMs: 10_000 }), channel };
}

/** The platform's webhook service over gRPC (tests subscribe receivers through it); close the channel after use. */
export function webhookClient(platform: Platform) {
  const channel = openChannel(`127.0.0.1:${platform.service('webhook').ready!.grpc_port}`);
  return { client: createGrpcClient(webhookV1.WebhookServiceDefinition, channel, { deadlineMs: 10_000 }), channel };
}

/** Spends all of a tenant's credits through identity's ledger, as a tenant out of credits would be. */
export async function drainCredits(platform: Platform, tenantId: string): Promise<void> {
  const identity = identityClient(platform);
  try {
    const { balance } = await identity.client.getBalance({ tenantId });
    await identity.client.charge({
      tenantId,
      amount: balance,
      idempotencyKey: `drain-${tenantId}`,
      description: 'test: drain',
    });
  } finally {
    identity.channel.close();
  }
}
