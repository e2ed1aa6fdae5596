import { identityV1 } from '@agentplatform/contracts';
import { createGrpcClient, openChannel, type Metrics } from '@agentplatform/service-kit';

/** The credit operations a chat needs (DESIGN.md section 5), kept behind one small port. */
export interface CreditsPort {
  balance(tenantId: string): Promise<number>;
  /** Idempotent by key: a repeat never charges twice. Chats may take the balance below zero. */
  charge(input: { tenantId: string; amount: number; idempotencyKey: string; description: string }): Promise<void>;
}

/** Credits through the identity service's gRPC API. */
export function identityCredits(
  address: string,
  deadlineMs: number,
  metrics: Metrics,
): CreditsPort & { close(): void } {
  const channel = openChannel(address);
  const client = createGrpcClient(identityV1.IdentityServiceDefinition, channel, { deadlineMs, metrics });
  return {
    async balance(tenantId) {
      return (await client.getBalance({ tenantId })).balance;
    },
    async charge({ tenantId, amount, idempotencyKey, description }) {
      await client.charge({ tenantId, amount, idempotencyKey, description, allowNegative: true });
    },
    close: () => channel.close(),
  };
}
