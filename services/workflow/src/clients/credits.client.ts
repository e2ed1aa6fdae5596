import { identityV1 } from '@agentplatform/contracts';
import { createGrpcClient, type Channel, type Metrics } from '@agentplatform/service-kit';

/** A workflow run costs one credit (DESIGN.md section 5); its agent nodes' chats are charged by agent-memory. */
export const RUN_COST = 1;

export interface CreditLedger {
  /** Charges one run; throws InsufficientCreditsError (402) at a balance below the cost. */
  chargeRun(tenantId: string, executionId: string, workflowId: string): Promise<void>;
  /** Gives a run's credit back when the run could not be created after all. */
  refundRun(tenantId: string, executionId: string): Promise<void>;
}

export function grpcCreditLedger(channel: Channel, deadlineMs: number, metrics: Metrics): CreditLedger {
  const client = createGrpcClient(identityV1.IdentityServiceDefinition, channel, { deadlineMs, metrics });
  return {
    async chargeRun(tenantId, executionId, workflowId) {
      await client.charge({
        tenantId,
        amount: RUN_COST,
        // A retried start never charges twice.
        idempotencyKey: `run:${executionId}`,
        description: `workflow run ${workflowId}`,
        allowNegative: false,
      });
    },
    async refundRun(tenantId, executionId) {
      await client.refund({
        tenantId,
        amount: RUN_COST,
        idempotencyKey: `refund:run:${executionId}`,
        description: `workflow run ${executionId} not started`,
      });
    },
  };
}
