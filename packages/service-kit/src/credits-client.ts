import { identityV1 } from '@agentplatform/contracts';
import { DomainError } from './errors.js';
import { createGrpcClient, fromCallError, openChannel, type Channel } from './grpc-client.js';
import { GroupCommit } from './group-commit.js';
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

type Outcome = { outcome?: { $case: string; value: unknown } };

/** One answer per item: its value, or the item's error as its single call would have thrown it. */
function outcomes<R>(answers: Outcome[], expected: number, value: (answer: never) => R): Array<R | Error> {
  if (answers.length !== expected) throw new Error(`identity answered ${answers.length} of ${expected} items`);
  return answers.map(({ outcome }) =>
    outcome?.$case === 'error'
      ? fromCallError(outcome.value as identityV1.CallError)
      : outcome
        ? value(outcome.value as never)
        : new Error('identity answered an item without an outcome'),
  );
}

/**
 * During a rolling upgrade an identity replica may not know the batch calls yet: gRPC answers
 * UNIMPLEMENTED ("The server does not implement the method ..."), which arrives as an
 * internal_error.
 */
function olderIdentity(error: unknown): boolean {
  return (
    error instanceof DomainError && error.code === 'internal_error' && error.message.includes('does not implement')
  );
}

/** A batch call; against an identity without it, its items go one call each, answered the same way. */
async function batchOrEach<T, A, R>(
  items: T[],
  batch: () => Promise<{ outcomes: Outcome[] }>,
  single: (item: T) => Promise<A>,
  value: (answer: A) => R,
): Promise<Array<R | Error>> {
  try {
    return outcomes((await batch()).outcomes, items.length, value);
  } catch (error) {
    if (!olderIdentity(error)) throw error;
    return Promise.all(
      items.map((item) =>
        single(item).then(
          (answer) => value(answer),
          (failed: Error) => failed,
        ),
      ),
    );
  }
}

/** Items one ReserveMany or SettleMany call may carry (identity refuses more as a whole). */
const MAX_ITEMS_PER_CALL = 256;

const settlement = (answer: identityV1.SettleResponse): Settlement => ({
  charged: answer.charged,
  released: answer.released,
});
const nothing = (): undefined => undefined;
const withoutValue = (answers: Array<unknown | Error>): Array<Error | undefined> =>
  answers.map((answer) => (answer instanceof Error ? answer : undefined));

/** Concurrent calls in one group: a lone item goes as the single call, several as the batch call. */
function grouped<T, A, R>(
  single: (item: T) => Promise<A>,
  many: (items: T[]) => Promise<Array<R | Error>>,
  value: (answer: A) => R,
): GroupCommit<T, R> {
  return new GroupCommit<T, R>(
    async (_key, items) => (items.length === 1 ? [value(await single(items[0]))] : many(items)),
    MAX_ITEMS_PER_CALL,
  );
}

/**
 * The credits client over identity's gRPC API, on a channel the caller owns.
 *
 * `reserve` and `settle` are grouped (service-kit's `GroupCommit`): a lone call goes out at once as
 * the single call; calls made while one is in flight go out together in the next ReserveMany or
 * SettleMany, whatever their tenants (identity answers every item on its own, writing a tenant's
 * entries as one batch), and each caller gets its own item's answer or error. A call that fails
 * as a whole (identity unreachable, the deadline) fails every item in it, each of which the caller
 * may retry: every item is idempotent by its operation id. A grouped call carries the request id
 * and trace context of the call that opened the group.
 */
export function identityCreditsClient(
  channel: Channel,
  options: { deadlineMs: number; metrics: Metrics },
): CreditsClient {
  const client = createGrpcClient(identityV1.IdentityServiceDefinition, channel, options);
  const reserveEach = (items: ReserveInput[]) =>
    batchOrEach(
      items,
      () => client.reserveMany({ items }),
      (item) => client.reserve(item),
      nothing,
    );
  const settleEach = (items: SettleInput[]) =>
    batchOrEach(
      items,
      () => client.settleMany({ items }),
      (item) => client.settle(item),
      settlement,
    );
  // One queue for every tenant: the fewest calls to identity.
  const reserves = grouped((item: ReserveInput) => client.reserve(item), reserveEach, nothing);
  const settles = grouped((item: SettleInput) => client.settle(item), settleEach, settlement);
  return {
    reserve: (input) => reserves.submit('', input),
    settle: (input) => settles.submit('', input),
    async release(input) {
      await client.release(input);
    },
    async charge(input) {
      await client.charge(input);
    },
    reserveMany: (items) => reserveEach(items),
    settleMany: async (items) => withoutValue(await settleEach(items)),
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
