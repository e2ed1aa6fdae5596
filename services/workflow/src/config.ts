import { kafkaEnvShape, loadConfig, serviceEnvShape } from '@agentplatform/service-kit';

export const configShape = {
  ...serviceEnvShape({ grpcPort: 50053, metricsPort: 9463, database: 'workflow' }),
  ...kafkaEnvShape,
};

export type Config = ReturnType<typeof loadServiceConfig>;

export function loadServiceConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(configShape, source);
}
