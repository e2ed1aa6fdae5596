import { dataEncryptionKeyEnv, env, kafkaEnvShape, loadConfig, tracingEnvShape } from '@agentplatform/service-kit';

export const gatewayEnvShape = {
  LOG_LEVEL: env.logLevel(),
  HOST: env.string('0.0.0.0'),
  PORT: env.port(8080),
  METRICS_PORT: env.port(9460),
  /** Public base URL, used to build links such as workflow hook URLs. */
  PUBLIC_URL: env.url().orUnset(),
  /** Base of workflow hook URLs (docs/design.md section 7); default: the public URL's `/hooks`. */
  HOOKS_URL: env.url().orUnset(),
  IDENTITY_GRPC_ADDR: env.string('127.0.0.1:50051'),
  AGENT_MEMORY_GRPC_ADDR: env.string('127.0.0.1:50052'),
  WORKFLOW_GRPC_ADDR: env.string('127.0.0.1:50053'),
  WEBHOOK_GRPC_ADDR: env.string('127.0.0.1:50054'),
  GRPC_DEADLINE_MS: env.int(5_000, 1),
  /**
   * gRPC calls in flight to each backend at most; past it the gateway answers 503 with
   * Retry-After without calling (docs/operations.md). Below the backends' GRPC_MAX_IN_FLIGHT, so
   * the gateway sheds first, where a refusal is cheapest.
   */
  BACKEND_MAX_IN_FLIGHT: env.int(64, 1),
  /**
   * The same bound for agent-memory, lower: its calls are the costly ones (a chat or a search
   * waits for the embedding model), so past this many the wait is a queue in agent-memory, not
   * work; shedding here keeps the admitted calls fast (docs/operations.md, "The overload's bound").
   */
  AGENT_MEMORY_MAX_IN_FLIGHT: env.int(32, 1),
  /**
   * The share of each of those bounds one tenant's requests may hold (docs/design.md section 5,
   * "Fair shares"): past it the tenant's next request gets 429 with Retry-After, and the rest of
   * the places stay free for other tenants however slow that tenant's calls are.
   */
  BACKEND_TENANT_SHARE: env.number(0.5, { min: 0.01, max: 1 }),
  /** The gateway's own database: shared rate-limit counters and Idempotency-Key records. */
  MONGODB_URI: env.mongoUri(),
  MONGODB_DATABASE: env.database('gateway'),
  /**
   * How long a verified API key, access token, a user's tenant access or their `/auth/me` profile
   * is reused. Revocations
   * drop them at once through identity's access events; this bounds only how stale a role or a
   * plan change (which sends no event) can be.
   */
  AUTH_CACHE_TTL_MS: env.int(5_000),
  /** Requests per minute and client address on register, login and refresh. */
  AUTH_RATE_LIMIT_PER_MINUTE: env.int(30, 1),
  /** Requests per minute to one workflow's inbound hooks. */
  HOOK_RATE_LIMIT_PER_MINUTE: env.int(600, 1),
  /**
   * The platform operator's bearer token for the operator routes (credit grants: docs/design.md
   * section 5); unset, those routes are not served (404). At least 32 characters.
   */
  OPERATOR_TOKEN: env.string(undefined, { length: 32, message: 'must be at least 32 characters' }).orUnset(),
  /** How long a response stored under an Idempotency-Key is replayed; older records are pruned. */
  IDEMPOTENCY_TTL_HOURS: env.int(24, 1),
  /** How often each replica prunes idempotency records and rate-limit counters past their time. */
  PRUNE_INTERVAL_MS: env.int(60 * 60_000, 100),
  /** Encrypts stored Idempotency-Key responses (docs/security.md); required. */
  DATA_ENCRYPTION_KEY: dataEncryptionKeyEnv(),
  /**
   * Proxies in front of the gateway that append to X-Forwarded-For (the ingress: 1). The client
   * address is the entry this many hops from the right; 0 ignores X-Forwarded-* entirely.
   */
  TRUSTED_PROXY_HOPS: env.int(0, 0),
  /** Identity's access events (revocations) come from Kafka, on `<KAFKA_TOPIC>.access`. */
  ...kafkaEnvShape,
  SHUTDOWN_TIMEOUT_MS: env.int(10_000),
  EXIT_WITH_PARENT: env.bool(false),
  ...tracingEnvShape,
};

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;

export function loadGatewayConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(gatewayEnvShape, source);
}
