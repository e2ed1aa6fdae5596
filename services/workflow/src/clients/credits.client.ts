import { identityV1 } from '@agentplatform/contracts';
import {
  GroupCommit,
  InsufficientCreditsError,
  createGrpcClient,
  type Channel,
  type Metrics,
} from '@agentplatform/service-kit';

/** A workflow run costs one credit (DESIGN.md section 5); its agent nodes' chats are charged by agent-memory. */
export const RUN_COST = 1;

export interface CreditLedger {
  /** Charges one run; throws InsufficientCreditsError (402) at a balance below the cost. */
  chargeRun(tenantId: string, executionId: string, workflowId: string): Promise<void>;
  /** Gives a run's credit back when the run could not be created after all. */
  refundRun(tenantId: string, executionId: string): Promise<void>;
}

interface RunCharge {
  executionId: string;
  workflowId: string;
}

/**
 * Charges runs through identity. A tenant's runs that start while one of its charges is in flight
 * are charged together, as one ledger entry of their total ("3 workflow runs of wf_…"): one call
 * and one balance update instead of one per run, which is what lets hooks run at hundreds per
 * second. A lone run gets its own entry as before. When the balance cannot cover a whole group,
 * its runs are charged one by one, so exactly those the balance covers go ahead.
 */
export function grpcCreditLedger(channel: Channel, deadlineMs: number, metrics: Metrics): CreditLedger {
  const client = createGrpcClient(identityV1.IdentityServiceDefinition, channel, { deadlineMs, metrics });

  const chargeOne = async (tenantId: string, run: RunCharge): Promise<undefined | Error> => {
    try {
      await client.charge({
        tenantId,
        amount: RUN_COST,
        // A retried start never charges twice.
        idempotencyKey: `run:${run.executionId}`,
        description: `workflow run ${run.workflowId}`,
        allowNegative: false,
      });
      return undefined;
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  };

  const charges = new GroupCommit<RunCharge, undefined>(async (tenantId, runs) => {
    if (runs.length === 1) return [await chargeOne(tenantId, runs[0]!)];
    const workflows = [...new Set(runs.map((r) => r.workflowId))];
    try {
      await client.charge({
        tenantId,
        amount: RUN_COST * runs.length,
        // Execution ids are unique, so the first names the group.
        idempotencyKey: `runs:${runs[0]!.executionId}:${runs.length}`,
        description: `${runs.length} workflow runs of ${workflows.slice(0, 5).join(', ')}${workflows.length > 5 ? ', …' : ''}`,
        allowNegative: false,
      });
      return runs.map(() => undefined);
    } catch (error) {
      if (!(error instanceof InsufficientCreditsError)) throw error;
      const results: Array<undefined | Error> = [];
      for (const run of runs) results.push(await chargeOne(tenantId, run));
      return results;
    }
  });

  return {
    chargeRun: (tenantId, executionId, workflowId) => charges.submit(tenantId, { executionId, workflowId }),
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
