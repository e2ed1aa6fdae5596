import { identityV1 } from '@agentplatform/contracts';
import { createGrpcClient, openChannel, type Channel } from './grpc-client.js';
import type { Metrics } from './metrics.js';
import type { ServiceRuntime } from './service.js';

export interface Settlement {
  charged: number;
  /** The reservation had been released (it expired): nothing was charged. */
  released: boolean;
}

/**
 * Identity's credit ledger as the other services use it (DESIGN.md section 5). Every call is
 * idempotent by its operation id (or idempotency key): a repeat never reserves, charges or gives
 * back twice, so a caller may retry any of them.
 */
export interface CreditsClient {
  /** Holds an amount; InsufficientCreditsError (402) when the balance cannot cover it. */
  reserve(input: { tenantId: string; operationId: string; amount: number; description: string }): Promise<void>;
  /** Charges what the work used out of its reservation and gives back the rest. */
  settle(input: { tenantId: string; operationId: string; used: number; description: string }): Promise<Settlement>;
  /** Gives the whole reservation back (the work failed or never started). */
  release(input: { tenantId: string; operationId: string; description: string }): Promise<void>;
  /** A known cost without a reservation. */
  charge(input: { tenantId: string; amount: number; idempotencyKey: string; description: string }): Promise<void>;
}

/** The credits client over identity's gRPC API, on a channel the caller owns. */
export function identityCreditsClient(
  channel: Channel,
  options: { deadlineMs: number; metrics: Metrics },
): CreditsClient {
  const client = createGrpcClient(identityV1.IdentityServiceDefinition, channel, options);
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
  };
}

/**
 * The credits client a service that charges for its work boots with: a channel of its own to
 * identity (it connects lazily, so identity need not be up yet), closed on shutdown.
 */
export function connectIdentityCredits(
  runtime: Pick<ServiceRuntime, 'lifecycle' | 'metrics'>,
  config: { IDENTITY_GRPC_ADDR: string; GRPC_DEADLINE_MS: number },
): CreditsClient {
  const channel = openChannel(config.IDENTITY_GRPC_ADDR);
  runtime.lifecycle.onShutdown('identity client', () => channel.close());
  return identityCreditsClient(channel, { deadlineMs: config.GRPC_DEADLINE_MS, metrics: runtime.metrics });
}
