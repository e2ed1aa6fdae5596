import { identityV1 } from '@agentplatform/contracts';
import {
  DomainError,
  GroupCommit,
  createGrpcClient,
  fromCallError,
  retry,
  type Channel,
  type Logger,
  type Metrics,
} from '@agentplatform/service-kit';

/** A workflow run costs one credit (DESIGN.md section 5); its agent nodes' chats are charged by agent-memory. */
export const RUN_COST = 1;

/** How a run's settle is retried before its reservation is left to expire (the run is then free). */
const SETTLE_RETRY = { attempts: 6, baseMs: 500, jitter: 0.25 };

export interface CreditLedger {
  /** Holds a run's credit before it starts; InsufficientCreditsError (402) at a balance below the cost. */
  reserveRun(tenantId: string, executionId: string, workflowId: string): Promise<void>;
  /** The run was stored and handed to the engine: its credit is spent. Retries in the background. */
  settleRun(tenantId: string, executionId: string): void;
  /** The run could not be started: its credit is given back. */
  releaseRun(tenantId: string, executionId: string): Promise<void>;
}

export type ReserveItem = identityV1.ReserveRequest;
export type SettleItem = identityV1.SettleRequest;

/**
 * Identity's credit calls as runs use them: reserves and settles of many runs per call, answered
 * per item (undefined, or the error that item's single call would have thrown). A whole call that
 * fails throws.
 */
export interface RunCredits {
  reserveMany(items: ReserveItem[]): Promise<Array<Error | undefined>>;
  settleMany(items: SettleItem[]): Promise<Array<Error | undefined>>;
  release(item: identityV1.ReleaseRequest): Promise<void>;
}

/** RunCredits over identity's gRPC API (ReserveMany, SettleMany, Release), on a channel the caller owns. */
export function identityRunCredits(channel: Channel, options: { deadlineMs: number; metrics: Metrics }): RunCredits {
  const client = createGrpcClient(identityV1.IdentityServiceDefinition, channel, options);
  const outcomes = (answers: Array<{ outcome?: { $case: string; value: unknown } }>, expected: number) => {
    if (answers.length !== expected) throw new Error(`identity answered ${answers.length} of ${expected} items`);
    return answers.map(({ outcome }) =>
      outcome?.$case === 'error'
        ? fromCallError(outcome.value as identityV1.CallError)
        : outcome
          ? undefined
          : new Error('identity answered an item without an outcome'),
    );
  };
  // During a rolling upgrade an identity replica may not know the batch calls yet: gRPC answers
  // UNIMPLEMENTED ("The server does not implement the method ..."), which arrives as an
  // internal_error. Its items then go one call each, answered the same way.
  const olderIdentity = (error: unknown) =>
    error instanceof DomainError && error.code === 'internal_error' && error.message.includes('does not implement');
  const batchOrEach = async <T>(
    items: T[],
    batch: () => Promise<{ outcomes: Array<{ outcome?: { $case: string; value: unknown } }> }>,
    single: (item: T) => Promise<unknown>,
  ): Promise<Array<Error | undefined>> => {
    try {
      return outcomes((await batch()).outcomes, items.length);
    } catch (error) {
      if (!olderIdentity(error)) throw error;
      return Promise.all(
        items.map((item) =>
          single(item).then(
            () => undefined,
            (failed: Error) => failed,
          ),
        ),
      );
    }
  };
  return {
    reserveMany: (items) =>
      batchOrEach(
        items,
        () => client.reserveMany({ items }),
        (item) => client.reserve(item),
      ),
    settleMany: (items) =>
      batchOrEach(
        items,
        () => client.settleMany({ items }),
        (item) => client.settle(item),
      ),
    async release(item) {
      await client.release(item);
    },
  };
}

function runOperation(executionId: string): string {
  return `run:${executionId}`;
}

/**
 * Runs' credits through identity: each run reserves its credit under its execution id before it
 * is stored, so a retried start never charges twice and a run that never starts (or whose
 * process dies before it is stored) is charged nothing: identity releases a reservation that is
 * not settled before it expires. Each run has its own ledger entries. A tenant's reserves (and
 * settles) that arrive while one call for it is in flight go out together in the next call: one
 * round trip for many runs, which identity writes as one batch. A tenant's batch waits only for
 * its own entries, never for another tenant's. A grouped call carries the request id (and trace
 * context) of the run whose call opened the group.
 */
export function runCreditLedger(identity: RunCredits, logger: Logger): CreditLedger {
  const reserves = new GroupCommit<ReserveItem, void>((_tenant, items) => identity.reserveMany(items));
  const settles = new GroupCommit<SettleItem, void>((_tenant, items) => identity.settleMany(items));

  const settle = async (tenantId: string, executionId: string): Promise<void> => {
    const item: SettleItem = {
      tenantId,
      operationId: runOperation(executionId),
      used: RUN_COST,
      description: `workflow run ${executionId} started`,
    };
    try {
      await retry(() => settles.submit(tenantId, item), SETTLE_RETRY);
    } catch (error) {
      logger.error({ err: error, execution_id: executionId }, 'could not settle a run credit; its reservation expires');
    }
  };

  return {
    async reserveRun(tenantId, executionId, workflowId) {
      await reserves.submit(tenantId, {
        tenantId,
        operationId: runOperation(executionId),
        amount: RUN_COST,
        description: `workflow run of ${workflowId}`,
      });
    },
    settleRun(tenantId, executionId) {
      void settle(tenantId, executionId);
    },
    async releaseRun(tenantId, executionId) {
      await identity.release({
        tenantId,
        operationId: runOperation(executionId),
        description: `workflow run ${executionId} not started`,
      });
    },
  };
}
