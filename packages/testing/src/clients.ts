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
