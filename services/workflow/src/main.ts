import { workflowV1 } from '@agentplatform/contracts/workflow-v1';
import { startOutbox } from '@agentplatform/events';
import {
  bootService,
  connectIdentityCredits,
  createGuardedAgent,
  meteredInFlightLimits,
  openChannel,
  planExecutionsInFlight,
  QuotaCounter,
  serve,
} from '@agentplatform/service-kit';
import { grpcAgentDirectory } from './clients/agents.client.js';
import { runCreditLedger } from './clients/credits.client.js';
import { identityTenantPlans } from './clients/plans.client.js';
import { loadServiceConfig } from './config.js';
import { newHookId } from './domain/hook-id.js';
import { ExecutionEngine } from './engine/execution-engine.js';
import { ExpressionSandbox } from './engine/expression-sandbox.js';
import { ExecutionRepository } from './persistence/execution.repository.js';
import { HeldRunRepository } from './persistence/held-run.repository.js';
import { ScheduleClaimRepository } from './persistence/schedule-claim.repository.js';
import { WorkflowRepository } from './persistence/workflow.repository.js';
import { startCreditSettleJob } from './jobs/credit-settle.job.js';
import { startRetentionJob } from './jobs/retention.job.js';
import { startScheduler } from './jobs/scheduler.job.js';
import { workflowGrpcService } from './transport/workflow.grpc.js';
import type { UseCaseDeps } from './use-cases/deps.js';
import { resealExecutionSecrets, resealWorkflowSecrets } from './use-cases/reseal-secrets.js';
import { pruneExecutions } from './use-cases/prune-executions.js';
import { childRunner } from './use-cases/run-child.js';
import { recoverStaleClaims, runScheduledTicks } from './use-cases/run-scheduled-ticks.js';
import { settlePendingRunCredits } from './use-cases/settle-run-credits.js';

/** config -> mongo -> kafka (outbox relay) -> engine -> grpc server -> graceful shutdown */
async function main(): Promise<void> {
  const config = loadServiceConfig();
  const runtime = await bootService('workflow', config);
  const outbox = await startOutbox(runtime, config);

  const workflows = new WorkflowRepository(runtime.mongo);
  const executions = new ExecutionRepository(runtime.mongo);
  const claims = new ScheduleClaimRepository(runtime.mongo);
  const line = new HeldRunRepository(runtime.mongo);
  await Promise.all([workflows.init(), executions.init(), claims.init(), line.init()]);
  const migrated = await workflows.migrateHookIds(newHookId);
  if (migrated > 0) runtime.logger.info({ workflows: migrated }, 'gave existing workflows secret hook ids');
  const box = config.DATA_ENCRYPTION_KEY;
  // Before serving: header values stored in plaintext by older releases, or under a retired data key.
  const sealing = { workflows, executions, box, logger: runtime.logger };
  const resealed = await resealWorkflowSecrets(sealing);
  if (resealed > 0) runtime.logger.info({ workflows: resealed }, 're-encrypted workflow header values');

  // gRPC channels connect lazily, so the peers need not be up yet.
  const agentMemoryChannel = openChannel(config.AGENT_MEMORY_GRPC_ADDR);
  runtime.lifecycle.onShutdown('agent-memory client', () => agentMemoryChannel.close());
  const agentMemoryLimit = meteredInFlightLimits(runtime.metrics, 'workflow_backend')(
    'agent-memory',
    config.AGENT_MEMORY_MAX_IN_FLIGHT,
    config.BACKEND_TENANT_SHARE,
  );
  const agents = grpcAgentDirectory(agentMemoryChannel, config.GRPC_DEADLINE_MS, runtime.metrics, agentMemoryLimit);
  const credits = runCreditLedger(connectIdentityCredits(runtime, config));
  const identityChannel = openChannel(config.IDENTITY_GRPC_ADDR);
  runtime.lifecycle.onShutdown('identity plans client', () => identityChannel.close());
  const plans = identityTenantPlans(identityChannel, {
    deadlineMs: config.GRPC_DEADLINE_MS,
    metrics: runtime.metrics,
    ttlMs: 60_000,
  });
  const http = createGuardedAgent({ allowPrivate: config.ALLOW_PRIVATE_URLS });
  runtime.lifecycle.onShutdown('http client', () => http.close());

  const expressions = new ExpressionSandbox({
    budgetMs: config.CEL_BUDGET_MS,
    threads: config.CEL_WORKERS,
    memoryMb: config.CEL_WORKER_MEMORY_MB,
    logger: runtime.logger,
  });
  runtime.lifecycle.onShutdown('expression sandbox', () => expressions.close());

  // Child runs (workflow and foreach nodes) start executions through the use cases, which need the engine.
  const wired: { deps?: UseCaseDeps } = {};
  const children = childRunner(() => wired.deps!);
  const inFlightMax = config.EXECUTIONS_IN_FLIGHT_MAX || Number.POSITIVE_INFINITY;
  const engine = new ExecutionEngine({
    executions,
    line,
    limits: {
      async limitOf(tenantId) {
        const plan = await plans.planOf(tenantId);
        return { plan, limit: Math.min(planExecutionsInFlight(plan), inFlightMax) };
      },
    },
    outbox,
    runners: { agents, http, expressions, children, box },
    logger: runtime.logger,
    options: {
      leaseMs: config.EXECUTION_LEASE_MS,
      pollIntervalMs: config.EXECUTION_POLL_INTERVAL_MS,
      maxConcurrent: config.MAX_CONCURRENT_EXECUTIONS,
      maxConcurrentPerTenant: Math.max(
        1,
        Math.floor(config.MAX_CONCURRENT_EXECUTIONS * config.EXECUTION_SLOTS_TENANT_SHARE),
      ),
      defaultNodeTimeoutMs: config.DEFAULT_NODE_TIMEOUT_MS,
      stopGraceMs: Math.floor(config.SHUTDOWN_TIMEOUT_MS / 2),
    },
  });
  runtime.lifecycle.onShutdown('execution engine', () => engine.stop());
  startRetentionJob(
    runtime,
    () =>
      pruneExecutions(
        { executions },
        { retentionDays: config.EXECUTION_RETENTION_DAYS, keepPerWorkflow: config.EXECUTION_KEEP_PER_WORKFLOW },
      ),
    config.EXECUTION_RETENTION_DAYS,
    config.PRUNE_INTERVAL_MS,
    claims,
  );

  const deps: UseCaseDeps = {
    workflows,
    executions,
    claims,
    engine,
    agents,
    credits,
    outbox,
    quotas: new QuotaCounter(runtime.mongo),
    logger: runtime.logger,
    box,
    settings: {
      maxExecutionDurationMs: config.EXECUTION_MAX_DURATION_MS,
      retentionDays: config.EXECUTION_RETENTION_DAYS,
    },
  };
  wired.deps = deps;
  engine.start();
  startCreditSettleJob(runtime, (batch) => settlePendingRunCredits(deps, batch), config.CREDIT_SETTLE_INTERVAL_MS);
  // Claims carry the replica's engine owner id, which its logs and leases carry too.
  startScheduler(
    runtime,
    {
      run: (now, batch, onClaimed) => runScheduledTicks(deps, engine.owner, now, batch, onClaimed),
      recover: (now, claimLeaseMs) => recoverStaleClaims(deps, engine.owner, now, claimLeaseMs),
    },
    {
      pollIntervalMs: config.SCHEDULER_POLL_INTERVAL_MS,
      batchSize: 500,
      maxRounds: 8,
      claimLeaseMs: config.SCHEDULER_CLAIM_LEASE_MS,
    },
  );
  runtime.server.add(workflowV1.WorkflowServiceDefinition, workflowGrpcService(deps));
  await serve(runtime, config);
  // Executions can be many, and runs open values under any key of the keyring: their snapshots
  // are re-sealed while the service serves.
  resealExecutionSecrets(sealing).then(
    (count) => {
      if (count > 0) runtime.logger.info({ executions: count }, 're-encrypted execution header values');
    },
    (error: unknown) => runtime.logger.error({ err: error }, 'could not re-encrypt execution header values'),
  );
}

main().catch((error) => {
  process.stderr.write(`workflow failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
