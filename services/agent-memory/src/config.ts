import { kafkaEnvShape, loadConfig, serviceEnvShape } from '@agentplatform/service-kit';

export const configShape = {
  ...serviceEnvShape({ grpcPort: 50052, metricsPort: 9462, database: 'agent_memory' }),
  ...kafkaEnvShape,
};

export type Config = ReturnType<typeof loadServiceConfig>;

export function loadServiceConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(configShape, source);
}
