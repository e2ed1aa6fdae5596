import { retry, type CreditsClient, type Logger } from '@agentplatform/service-kit';

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

function runOperation(executionId: string): string {
  return `run:${executionId}`;
}

/**
 * Runs' credits through identity: each run reserves its credit under its execution id before it
 * is stored, so a retried start never charges twice and a run that never starts (or whose
 * process dies before it is stored) is charged nothing: identity releases a reservation that is
 * not settled before it expires. Each run has its own ledger entries; identity writes a tenant's
 * concurrent entries in one batch.
 */
export function runCreditLedger(credits: CreditsClient, logger: Logger): CreditLedger {
  const settle = async (tenantId: string, executionId: string): Promise<void> => {
    try {
      await retry(
        () =>
          credits.settle({
            tenantId,
            operationId: runOperation(executionId),
            used: RUN_COST,
            description: `workflow run ${executionId} started`,
          }),
        SETTLE_RETRY,
      );
    } catch (error) {
      logger.error({ err: error, execution_id: executionId }, 'could not settle a run credit; its reservation expires');
    }
  };

  return {
    async reserveRun(tenantId, executionId, workflowId) {
      await credits.reserve({
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
      await credits.release({
        tenantId,
        operationId: runOperation(executionId),
        description: `workflow run ${executionId} not started`,
      });
    },
  };
}
