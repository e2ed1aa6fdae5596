import { z } from 'zod';
import { env, loadConfig } from '@agentplatform/service-kit';

export const gatewayEnvShape = {
  LOG_LEVEL: env.logLevel(),
  HOST: z.string().default('0.0.0.0'),
  PORT: env.port(8080),
  METRICS_PORT: env.port(9460),
  /** Public base URL, used to build links such as workflow hook URLs. */
  PUBLIC_URL: z.string().url().optional(),
  IDENTITY_GRPC_ADDR: z.string().default('127.0.0.1:50051'),
  AGENT_MEMORY_GRPC_ADDR: z.string().default('127.0.0.1:50052'),
  WORKFLOW_GRPC_ADDR: z.string().default('127.0.0.1:50053'),
  WEBHOOK_GRPC_ADDR: z.string().default('127.0.0.1:50054'),
  GRPC_DEADLINE_MS: env.int(5_000, 1),
  /** Honour X-Forwarded-For from the ingress when computing client addresses. */
  TRUST_PROXY: env.bool(false),
  SHUTDOWN_TIMEOUT_MS: env.int(10_000),
  EXIT_WITH_PARENT: env.bool(false),
};

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;

export function loadGatewayConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(gatewayEnvShape, source);
}
