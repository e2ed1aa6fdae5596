import { identityV1 } from '@agentplatform/contracts';
import { createGrpcClient, type Channel, type Logger, type Metrics } from '@agentplatform/service-kit';

/** A workflow run costs one credit (DESIGN.md section 5); its agent nodes' chats are charged by agent-memory. */
export const RUN_COST = 1;

/** How often a run's settle is tried before its reservation is left to expire (the run is then free). */
const SETTLE_ATTEMPTS = 6;

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
export function grpcCreditLedger(channel: Channel, deadlineMs: number, metrics: Metrics, logger: Logger): CreditLedger {
  const client = createGrpcClient(identityV1.IdentityServiceDefinition, channel, { deadlineMs, metrics });

  const settle = async (tenantId: string, executionId: string): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      try {
        await client.settle({
          tenantId,
          operationId: runOperation(executionId),
          used: RUN_COST,
          description: `workflow run ${executionId} started`,
        });
        return;
      } catch (error) {
        if (attempt === SETTLE_ATTEMPTS) {
          logger.error(
            { err: error, execution_id: executionId },
            'could not settle a run credit; its reservation expires',
          );
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt).unref());
      }
    }
  };

  return {
    async reserveRun(tenantId, executionId, workflowId) {
      await client.reserve({
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
      await client.release({
        tenantId,
        operationId: runOperation(executionId),
        description: `workflow run ${executionId} not started`,
      });
    },
  };
}
