import {
  dataEncryptionKeyEnv,
  env,
  kafkaEnvShape,
  loadConfig,
  outboxEnvShape,
  serviceEnvShape,
  outboundEnvShape,
} from '@agentplatform/service-kit';

export const configShape = {
  ...serviceEnvShape({ grpcPort: 50053, metricsPort: 9463, database: 'workflow' }),
  ...kafkaEnvShape,
  ...outboxEnvShape,
  /** agent-memory (agent nodes: GetAgent at validation, Chat at run time). */
  AGENT_MEMORY_GRPC_ADDR: env.string('127.0.0.1:50052'),
  /**
   * Agent nodes' calls in flight to agent-memory from one replica, at most; past it a node's call
   * fails with 503, retryable (docs/operations.md, "Overload"). Below agent-memory's
   * GRPC_MAX_IN_FLIGHT, so that workflows never take all of its places from the gateway's calls.
   */
  AGENT_MEMORY_MAX_IN_FLIGHT: env.int(32, 1),
  /**
   * The share of that bound one tenant's agent nodes may hold; past it a node's call fails with 429
   * rate_limit_exceeded, retryable, and the other places stay free for other tenants' workflows.
   */
  BACKEND_TENANT_SHARE: env.number(0.5, { min: 0.01, max: 1 }),
  /** identity (a run costs one credit, charged when it starts). */
  IDENTITY_GRPC_ADDR: env.string('127.0.0.1:50051'),
  GRPC_DEADLINE_MS: env.int(5_000, 1),
  /** Seals the header values of http nodes at rest (docs/security.md); required. */
  DATA_ENCRYPTION_KEY: dataEncryptionKeyEnv(),
  ...outboundEnvShape,
  /** How long a replica owns an execution without renewing; a crashed replica's work moves after this. */
  EXECUTION_LEASE_MS: env.int(15_000, 1_000),
  /** How often a replica looks for executions whose lease expired (crashes, overflow). */
  EXECUTION_POLL_INTERVAL_MS: env.int(2_000, 50),
  /** Executions one replica runs at the same time; more wait (status running) for a free slot. */
  MAX_CONCURRENT_EXECUTIONS: env.int(500, 1),
  /**
   * The share of those slots one tenant may hold (docs/workflow-engine.md, "Execution slots"): the rest
   * stays free for other tenants however long one tenant's runs take.
   */
  EXECUTION_SLOTS_TENANT_SHARE: env.number(0.8, { min: 0.01, max: 1 }),
  /**
   * Lowers every plan's bound on one tenant's executions in flight to this (0: the plans' bounds
   * as they are). For a deployment smaller than the plans assume, and for tests.
   */
  EXECUTIONS_IN_FLIGHT_MAX: env.int(0, 0),
  /** Upper bound of one execution from start to end. */
  EXECUTION_MAX_DURATION_MS: env.int(15 * 60_000, 1_000),
  /** Node timeout when the node sets none (delay nodes get their delay on top). */
  DEFAULT_NODE_TIMEOUT_MS: env.int(60_000, 100),
  /** Evaluation time one node's CEL expressions may use together (docs/design.md section 7). */
  CEL_BUDGET_MS: env.int(50, 1),
  /** Worker threads that evaluate CEL off the event loop (docs/workflow-nodes.md, expression budget). */
  CEL_WORKERS: env.int(2, 1),
  /** Heap of one CEL worker thread, in MB: an expression that builds huge values fails there. */
  CEL_WORKER_MEMORY_MB: env.int(128, 16),
  /** Finished executions older than this are deleted; fractions of a day are allowed. */
  EXECUTION_RETENTION_DAYS: env.positive(30),
  /** Each workflow's newest executions kept past EXECUTION_RETENTION_DAYS. */
  EXECUTION_KEEP_PER_WORKFLOW: env.int(1_000, 0),
  PRUNE_INTERVAL_MS: env.int(60 * 60_000, 100),
  /**
   * How often runs whose credit settle was not confirmed (identity unreachable or busy) are
   * settled again; a failing pass backs off from this up to a minute.
   */
  CREDIT_SETTLE_INTERVAL_MS: env.int(5_000, 100),
  /** How often a replica looks for due schedule ticks (the most a tick waits on an idle replica). */
  SCHEDULER_POLL_INTERVAL_MS: env.int(250, 10),
  /** A schedule claim left unstarted this long belongs to a dead replica and is taken over. */
  SCHEDULER_CLAIM_LEASE_MS: env.int(10_000, 1_000),
};

export type Config = ReturnType<typeof loadServiceConfig>;

export function loadServiceConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(configShape, source);
}
