import { identityV1 } from '@agentplatform/contracts/identity-v1';
import { createGrpcClient, openChannel, type Channel } from './grpc-client.js';
import { groupedCall } from './grouped-calls.js';
import type { Metrics } from './metrics.js';
import type { ServiceRuntime } from './service.js';

export interface Settlement {
  charged: number;
  /** The reservation had been released (it expired): nothing was charged. */
  released: boolean;
}

export interface ReserveInput {
  tenantId: string;
  operationId: string;
  amount: number;
  description: string;
}

export interface SettleInput {
  tenantId: string;
  operationId: string;
  used: number;
  description: string;
}

/**
 * Identity's credit ledger as the other services use it (docs/design.md section 5). Every call is
 * idempotent by its operation id (or idempotency key): a repeat never reserves, charges or gives
 * back twice, so a caller may retry any of them.
 */
export interface CreditsClient {
  /**
   * Holds an amount; InsufficientCreditsError (402) when the balance cannot cover it. Concurrent
   * calls share one ReserveMany, each answered for itself.
   */
  reserve(input: ReserveInput): Promise<void>;
  /** Charges what the work used out of its reservation and gives back the rest; grouped like `reserve`. */
  settle(input: SettleInput): Promise<Settlement>;
  /** Gives the whole reservation back (the work failed or never started). */
  release(input: { tenantId: string; operationId: string; description: string }): Promise<void>;
  /** A known cost without a reservation. */
  charge(input: { tenantId: string; amount: number; idempotencyKey: string; description: string }): Promise<void>;
  /**
   * Reserves of many operations in one call, answered per item: undefined, or the error that
   * item's own `reserve` would have thrown. A call that fails as a whole throws.
   */
  reserveMany(items: ReserveInput[]): Promise<Array<Error | undefined>>;
  /** Settles of many operations in one call, answered per item like `reserveMany`. */
  settleMany(items: SettleInput[]): Promise<Array<Error | undefined>>;
}

const settlement = (answer: identityV1.SettleResponse): Settlement => ({
  charged: answer.charged,
  released: answer.released,
});
const nothing = (): undefined => undefined;
const withoutValue = (answers: Array<unknown | Error>): Array<Error | undefined> =>
  answers.map((answer) => (answer instanceof Error ? answer : undefined));

/**
 * The credits client over identity's gRPC API, on a channel the caller owns.
 *
 * `reserve` and `settle` are grouped (`groupedCall`, grouped-calls.ts): a lone call goes out at once as
 * the single call; calls made while one is in flight go out together in the next ReserveMany or
 * SettleMany, whatever their tenants (identity answers every item on its own, writing a tenant's
 * entries as one batch), and each caller gets its own item's answer or error. A call that fails
 * as a whole (identity unreachable, the deadline) fails every item in it, each of which the caller
 * may retry: every item is idempotent by its operation id. A batch call carries the request id
 * and trace context of the call that opened the group (its items carry none of their own); a
 * single call, those of its own caller.
 */
export function identityCreditsClient(
  channel: Channel,
  options: { deadlineMs: number; metrics: Metrics },
): CreditsClient {
  const client = createGrpcClient(identityV1.IdentityServiceDefinition, channel, options);
  // One queue per kind for every tenant: the fewest calls to identity.
  const reserves = groupedCall({
    single: (item: ReserveInput) => client.reserve(item),
    batch: (items) => client.reserveMany({ items }),
    value: nothing,
  });
  const settles = groupedCall({
    single: (item: SettleInput) => client.settle(item),
    batch: (items) => client.settleMany({ items }),
    value: settlement,
  });
  return {
    reserve: (input) => reserves.call(input),
    settle: (input) => settles.call(input),
    async release(input) {
      await client.release(input);
    },
    async charge(input) {
      await client.charge(input);
    },
    reserveMany: (items) => reserves.many(items),
    settleMany: async (items) => withoutValue(await settles.many(items)),
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
