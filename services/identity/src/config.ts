import { kafkaEnvShape, loadConfig, serviceEnvShape } from '@agentplatform/service-kit';

export const configShape = {
  ...serviceEnvShape({ grpcPort: 50051, metricsPort: 9461, database: 'identity' }),
  ...kafkaEnvShape,
};

export type Config = ReturnType<typeof loadServiceConfig>;

export function loadServiceConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(configShape, source);
}
