import { GroupCommit, type CreditsClient, type ReserveInput, type SettleInput } from '@agentplatform/service-kit';

/** A workflow run costs one credit (docs/design.md section 5); its agent nodes' chats are charged by agent-memory. */
export const RUN_COST = 1;

export interface CreditLedger {
  /** Holds a run's credit before it starts; InsufficientCreditsError (402) at a balance below the cost. */
  reserveRun(tenantId: string, executionId: string, workflowId: string): Promise<void>;
  /**
   * The run was stored and handed to the engine: its credit is spent. Throws when identity did
   * not confirm it; the run is stored as not yet settled, and the settle job retries it.
   */
  settleRun(tenantId: string, executionId: string): Promise<void>;
  /** The run could not be started: its credit is given back. */
  releaseRun(tenantId: string, executionId: string): Promise<void>;
}

/** The batch calls of service-kit's credits client that the ledger groups runs into. */
export type RunCredits = Pick<CreditsClient, 'reserveMany' | 'settleMany' | 'release'>;

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
export function runCreditLedger(identity: RunCredits): CreditLedger {
  const reserves = new GroupCommit<ReserveInput, void>((_tenant, items) => identity.reserveMany(items));
  const settles = new GroupCommit<SettleInput, void>((_tenant, items) => identity.settleMany(items));

  return {
    async reserveRun(tenantId, executionId, workflowId) {
      await reserves.submit(tenantId, {
        tenantId,
        operationId: runOperation(executionId),
        amount: RUN_COST,
        description: `workflow run of ${workflowId}`,
      });
    },
    async settleRun(tenantId, executionId) {
      await settles.submit(tenantId, {
        tenantId,
        operationId: runOperation(executionId),
        used: RUN_COST,
        description: `workflow run ${executionId} started`,
      });
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
