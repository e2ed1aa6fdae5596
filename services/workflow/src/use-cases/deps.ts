import type { Outbox } from '@agentplatform/events';
import type { Logger, QuotaCounter, SecretBox } from '@agentplatform/service-kit';
import type { AgentDirectory } from '../clients/agents.client.js';
import type { CreditLedger } from '../clients/credits.client.js';
import type { TenantPlans } from '../clients/plans.client.js';
import type { ExecutionEngine } from '../engine/execution-engine.js';
import type { ExecutionRepository } from '../persistence/execution.repository.js';
import type { ScheduleClaimRepository } from '../persistence/schedule-claim.repository.js';
import type { WorkflowRepository } from '../persistence/workflow.repository.js';

/** What the use cases work with; wired once in main.ts. */
export interface UseCaseDeps {
  workflows: WorkflowRepository;
  executions: ExecutionRepository;
  /** Schedule ticks claimed by the replicas (one run per workflow and tick). */
  claims: ScheduleClaimRepository;
  engine: ExecutionEngine;
  agents: AgentDirectory;
  credits: CreditLedger;
  /** Tenants' plans, which bound their executions in flight. */
  plans: TenantPlans;
  outbox: Outbox;
  /** Workflows per tenant (docs/design.md section 5). */
  quotas: QuotaCounter;
  logger: Logger;
  /** Seals http nodes' header values (DATA_ENCRYPTION_KEY; domain/sealed-headers.ts). */
  box: SecretBox;
  settings: {
    maxExecutionDurationMs: number;
    retentionDays: number;
  };
}
