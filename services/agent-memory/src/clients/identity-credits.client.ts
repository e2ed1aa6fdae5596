import { identityV1 } from '@agentplatform/contracts';
import { createGrpcClient, openChannel, type Metrics } from '@agentplatform/service-kit';

export interface Settlement {
  charged: number;
  /** The reservation had been released (it expired): nothing was charged. */
  released: boolean;
}

/**
 * The credit operations a chat needs (DESIGN.md section 5), kept behind one small port. All are
 * idempotent by operation id: a repeat never reserves, charges or gives back twice.
 */
export interface CreditsPort {
  /** Holds an estimate; InsufficientCreditsError (402) when the balance cannot cover it. */
  reserve(input: { tenantId: string; operationId: string; amount: number; description: string }): Promise<void>;
  /** Charges what the work used out of its reservation and gives back the rest. */
  settle(input: { tenantId: string; operationId: string; used: number; description: string }): Promise<Settlement>;
  /** Gives the whole reservation back (the work failed). */
  release(input: { tenantId: string; operationId: string; description: string }): Promise<void>;
  /** A known cost, for chats stored before reservations existed. */
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
    async reserve(input) {
      await client.reserve(input);
    },
    async settle(input) {
      const answer = await client.settle(input);
      return { charged: answer.charged, released: answer.released };
    },
    async release(input) {
      await client.release(input);
    },
    async charge(input) {
      await client.charge(input);
    },
    close: () => channel.close(),
  };
}
