import { z } from 'zod';
import { SecretBox } from './secret-box.js';

/** Thrown at start-up when the environment does not fit the schema; names every bad variable. */
export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid configuration:\n  ${issues.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses environment variables through a zod schema once, at start-up. Empty strings count as
 * unset so `FOO=` falls back to the default instead of failing a number or URL check.
 */
export function loadConfig<S extends z.ZodRawShape>(
  shape: S,
  env: NodeJS.ProcessEnv = process.env,
): z.infer<z.ZodObject<S>> {
  const input: Record<string, string> = {};
  for (const key of Object.keys(shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const result = z.object(shape).safeParse(input);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`));
  }
  return result.data;
}

/** Reusable variable schemas. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  int: (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback),
  bool: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0'])
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1'),
  list: (fallback: string) =>
    z
      .string()
      .default(fallback)
      .transform((v) =>
        v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      ),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  mongoUri: () =>
    z.string().startsWith('mongodb', 'must be a mongodb:// or mongodb+srv:// URI').default('mongodb://127.0.0.1:27017'),
  database: (fallback: string) =>
    z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/)
      .default(fallback),
};

/** The tracing variables (the OpenTelemetry SDK's own names); see tracing.ts. */
export const tracingEnvShape = {
  /** Base URL of an OTLP/HTTP receiver (an OpenTelemetry collector); spans go to `<it>/v1/traces`. Unset: no tracing, at no cost. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  /** The `service.name` of the process's spans; default: the service's own name. */
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  /** Which traces are recorded (the SDK's standard names); default: every request's. */
  OTEL_TRACES_SAMPLER: z
    .enum([
      'always_on',
      'always_off',
      'traceidratio',
      'parentbased_always_on',
      'parentbased_always_off',
      'parentbased_traceidratio',
    ])
    .default('parentbased_always_on'),
  /** The ratio of the `traceidratio` samplers, 0 to 1. */
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
};

/** Variables every gRPC service reads. */
export function serviceEnvShape(defaults: { grpcPort: number; database: string; metricsPort: number }) {
  return {
    LOG_LEVEL: env.logLevel(),
    GRPC_HOST: z.string().default('0.0.0.0'),
    GRPC_PORT: env.port(defaults.grpcPort),
    METRICS_PORT: env.port(defaults.metricsPort),
    MONGODB_URI: env.mongoUri(),
    MONGODB_DATABASE: env.database(defaults.database),
    SHUTDOWN_TIMEOUT_MS: env.int(10_000),
    /** Stop when stdin closes (set by `npm start` and the test harness, which keep it open). */
    EXIT_WITH_PARENT: env.bool(false),
    OTEL_EXPORTER_OTLP_ENDPOINT: tracingEnvShape.OTEL_EXPORTER_OTLP_ENDPOINT,
    OTEL_SERVICE_NAME: tracingEnvShape.OTEL_SERVICE_NAME,
    OTEL_TRACES_SAMPLER: tracingEnvShape.OTEL_TRACES_SAMPLER,
    OTEL_TRACES_SAMPLER_ARG: tracingEnvShape.OTEL_TRACES_SAMPLER_ARG,
  };
}

/** Variables of a process that talks to Kafka. */
export const kafkaEnvShape = {
  KAFKA_BROKERS: env.list('127.0.0.1:9092'),
  KAFKA_CLIENT_ID: z.string().optional(),
  KAFKA_TOPIC: z.string().default('platform.events'),
  KAFKA_TOPIC_PARTITIONS: env.int(6, 1),
};

const MISSING_DATA_KEY =
  'is required: the keyring that encrypts secrets at rest, as kid:base64key[,kid:base64key] ' +
  '(32-byte keys, the first one current; `npm start` creates one, production sets it from a Secret; see docs/security.md)';

/**
 * `DATA_ENCRYPTION_KEY`, parsed into the SecretBox that seals secrets at rest. Required in every
 * environment: a process that stores secrets never falls back to plaintext.
 */
export function dataEncryptionKeyEnv() {
  return z
    .string({ error: (issue) => (issue.input === undefined ? MISSING_DATA_KEY : 'must be a string') })
    .transform((value, ctx) => {
      try {
        return SecretBox.fromKeyring(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    });
}
