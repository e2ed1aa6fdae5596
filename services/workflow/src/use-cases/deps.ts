import type { Outbox } from '@agentplatform/events';
import type { Logger, QuotaCounter, SecretBox } from '@agentplatform/service-kit';
import type { ClientSession } from 'mongoose';
import type { AgentDirectory } from '../clients/agents.client.js';
import type { CreditLedger } from '../clients/credits.client.js';
import type { Execution, ExecutionStatus, SealedSnapshot } from '../domain/execution.types.js';
import type { Lease } from '../domain/lease.js';
import type { ClaimState, ScheduleClaim } from '../domain/schedule-claim.types.js';
import type { StatusCounts } from '../domain/statistics.js';
import type { Workflow, WorkflowChanges, WorkflowNode, WorkflowStatus } from '../domain/workflow.types.js';
import type { ExecutionEngine } from '../engine/execution-engine.js';

/**
 * The ports of the workflow use cases: what each needs of the stores, the engine and the peers.
 * The mongoose repositories (persistence/) implement the stores, src/testing/in-memory.ts fakes
 * them; main.ts wires the real ones.
 */

/** Workflows, scoped by tenant but for the hook lookup (by its secret id) and the scheduler's calls. */
export interface WorkflowStore {
  count(tenantId: string): Promise<number>;
  insert(workflow: Workflow): Promise<void>;
  get(tenantId: string, id: string): Promise<Workflow | undefined>;
  getForHook(hookId: string): Promise<Workflow | undefined>;
  rotateHook(tenantId: string, id: string, hookId: string, now: Date): Promise<Workflow | undefined>;
  list(
    tenantId: string,
    options: { skip: number; limit: number; status?: string },
  ): Promise<{ items: Workflow[]; total: number }>;
  /** Applies only while the workflow has this status and version (undefined otherwise). */
  update(
    tenantId: string,
    id: string,
    changes: WorkflowChanges,
    conditions?: { status?: WorkflowStatus; version?: number },
  ): Promise<Workflow | undefined>;
  setStatus(
    tenantId: string,
    id: string,
    from: { status: WorkflowStatus; version: number },
    change: { status: WorkflowStatus; nextRunAt: Date | null },
    now: Date,
  ): Promise<Workflow | undefined>;
  delete(tenantId: string, id: string): Promise<boolean>;
  /** Workflows whose next tick has come, oldest first (all tenants). */
  due(now: Date, limit: number): Promise<Workflow[]>;
  /** Moves next_run_at from `from` to `to` for each workflow still at `from`. */
  advance(moves: Array<{ id: string; from: Date; to: Date | null }>): Promise<void>;
  statuses(ids: string[]): Promise<Map<string, WorkflowStatus>>;
  sealedWith(keyId: string): Promise<Workflow | undefined>;
  withStaleSecrets(currentKeyId: string): AsyncIterable<Workflow>;
  replaceSealedNodes(workflow: Workflow, nodes: WorkflowNode[]): Promise<boolean>;
}

/** Executions as the use cases read and change them (the engine writes runs through its own ports). */
export interface ExecutionStore {
  insert(execution: Execution, lease: Lease): Promise<void>;
  /** Which of these are stored (all tenants: schedule claim recovery). */
  existing(ids: string[]): Promise<Set<string>>;
  /** `workflowId` undefined: in any of the tenant's workflows. */
  get(tenantId: string, workflowId: string | undefined, id: string): Promise<Execution | undefined>;
  getById(tenantId: string, id: string): Promise<Execution | undefined>;
  countRunning(tenantId: string, atMost: number): Promise<number>;
  runningChildren(tenantId: string, parentExecutionId: string): Promise<Execution[]>;
  list(
    tenantId: string,
    workflowId: string,
    options: { limit: number; status?: ExecutionStatus },
  ): Promise<{ items: Execution[]; total: number }>;
  /** `session`: the outbox's, so the state change and its events are written together. */
  cancel(
    tenantId: string,
    workflowId: string,
    id: string,
    now: Date,
    session?: ClientSession,
  ): Promise<Execution | undefined>;
  statusCounts(tenantId: string, workflowId: string): Promise<StatusCounts>;
  lastRunAt(tenantId: string, workflowIds: string[]): Promise<Map<string, Date>>;
  /** A new workflow: its run window is complete and its count of runs 0 from the start. */
  openWorkflow(workflowId: string): Promise<void>;
  deleteForWorkflow(tenantId: string, workflowId: string): Promise<void>;
  pendingCredits(limit: number): Promise<Array<Pick<Execution, 'id' | 'tenantId'>>>;
  markCredited(id: string): Promise<void>;
  pruneFinishedBefore(cutoff: Date, options: { keepPerWorkflow: number; batchSize: number }): Promise<number>;
  withStaleSecrets(currentKeyId: string): AsyncIterable<SealedSnapshot>;
  replaceSealedNodes(snapshot: SealedSnapshot, nodes: WorkflowNode[]): Promise<boolean>;
}

/** Schedule ticks claimed by the replicas (one run per workflow and tick). */
export interface ScheduleClaimStore {
  /** Answers, per claim, whether this call won it. */
  claim(claims: ScheduleClaim[]): Promise<boolean[]>;
  settle(ids: string[], state: Exclude<ClaimState, 'starting'>, error?: string): Promise<void>;
  startingFor(workflowId: string): Promise<boolean>;
  takeOverStale(owner: string, staleBefore: Date, now: Date): Promise<ScheduleClaim | undefined>;
}

/** The engine as the use cases drive it: store and run (or queue), wait, abandon, and the tenant's bound. */
export type ExecutionRunner = Pick<ExecutionEngine, 'submit' | 'waitFor' | 'abandon' | 'overLimit'>;

/** What the use cases work with; wired once in main.ts. */
export interface UseCaseDeps {
  workflows: WorkflowStore;
  executions: ExecutionStore;
  claims: ScheduleClaimStore;
  engine: ExecutionRunner;
  agents: AgentDirectory;
  credits: CreditLedger;
  /** Events written with the state change they announce. */
  outbox: Pick<Outbox, 'run'>;
  /** Workflows per tenant (docs/design.md section 5). */
  quotas: Pick<QuotaCounter, 'acquire' | 'release'>;
  logger: Logger;
  /** Seals http nodes' header values (DATA_ENCRYPTION_KEY; domain/sealed-headers.ts). */
  box: SecretBox;
  settings: {
    maxExecutionDurationMs: number;
    retentionDays: number;
  };
}
