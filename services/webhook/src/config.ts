import { z } from 'zod';
import { kafkaEnvShape, loadConfig, serviceEnvShape } from '@agentplatform/service-kit';

export const configShape = {
  ...serviceEnvShape({ grpcPort: 50054, metricsPort: 9464, database: 'webhook' }),
  ...kafkaEnvShape,
  KAFKA_CONSUMER_GROUP: z.string().default('webhook-dispatcher'),
};

export type Config = ReturnType<typeof loadServiceConfig>;

export function loadServiceConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(configShape, source);
}
