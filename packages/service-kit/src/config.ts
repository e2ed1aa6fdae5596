import { SecretBox } from './secret-box.js';

/** Thrown at start-up when the environment does not fit the schema; names every bad variable. */
export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid configuration:\n  ${issues.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * One environment variable: how its text becomes a value, and what an unset variable gives.
 * `fallback` is the default as text (it goes through `parse` like a set value, and is what
 * docs/configuration.md shows); `optional` variables are undefined when unset; any other is required.
 *
 * Not zod: every process reads its environment once, and zod (2.9 MB of live heap with its 64
 * locales) was loaded by identity, agent-memory and the webhook service for that alone
 * (docs/performance.md, "Idle memory").
 */
export class EnvVar<T> {
  constructor(
    /** Turns the variable's text into its value; throws an Error whose message says what is wrong. */
    readonly parse: (text: string) => T,
    readonly fallback?: string,
    readonly optional = false,
    readonly requiredMessage = 'is required',
    /** A renamed variable's former name, read while the variable itself is unset. */
    readonly formerName?: string,
  ) {}

  /** Undefined when unset instead of required. */
  orUnset(): EnvVar<T | undefined> {
    return new EnvVar<T | undefined>(this.parse, undefined, true, this.requiredMessage, this.formerName);
  }

  /** Also read from `name` while unset: a renamed variable keeps its old name for a release. */
  formerly(name: string): EnvVar<T> {
    return new EnvVar(this.parse, this.fallback, this.optional, this.requiredMessage, name);
  }

  /** The value of an unset variable, or an Error saying why there is none. */
  read(text: string | undefined): T {
    if (text !== undefined) return this.parse(text);
    if (this.fallback !== undefined) return this.parse(this.fallback);
    if (this.optional) return undefined as T;
    throw new Error(this.requiredMessage);
  }
}

type ValueOf<V> = V extends EnvVar<infer T> ? T : never;
type EnvShape = Record<string, EnvVar<unknown>>;
/** The parsed configuration: a key per variable, optional where the variable may stay unset. */
export type ConfigOf<S extends EnvShape> = {
  [K in keyof S as undefined extends ValueOf<S[K]> ? never : K]: ValueOf<S[K]>;
} & { [K in keyof S as undefined extends ValueOf<S[K]> ? K : never]?: ValueOf<S[K]> };

/**
 * Parses environment variables once, at start-up. Empty strings count as unset so `FOO=` falls
 * back to the default instead of failing a number or URL check. A bad value is named by the
 * variable it was read from (the former name where that was the one set).
 */
export function loadConfig<S extends EnvShape>(shape: S, env: NodeJS.ProcessEnv = process.env): ConfigOf<S> {
  const config: Record<string, unknown> = {};
  const issues: string[] = [];
  const text = (name: string) => (env[name] === '' ? undefined : env[name]);
  for (const [key, variable] of Object.entries(shape)) {
    const former = variable.formerName;
    const named = text(key) === undefined && former !== undefined && text(former) !== undefined ? former : key;
    try {
      const value = variable.read(text(named));
      if (value !== undefined) config[key] = value;
    } catch (error) {
      issues.push(`${named}: ${(error as Error).message}`);
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return config as ConfigOf<S>;
}

function number(text: string, what: 'a number' | 'an integer', limits: { min?: number; max?: number } = {}): number {
  const value = text.trim() === '' ? NaN : Number(text);
  const { min = -Infinity, max = Infinity } = limits;
  if (!Number.isFinite(value) || (what === 'an integer' && !Number.isInteger(value)) || value < min || value > max) {
    const range = [min > -Infinity ? `>= ${min}` : '', max < Infinity ? `<= ${max}` : ''].filter(Boolean).join(' and ');
    throw new Error(`must be ${what}${range ? ` ${range}` : ''}, not "${text}"`);
  }
  return value;
}

function oneOf<const V extends string>(values: readonly V[]) {
  return (text: string): V => {
    if (!(values as readonly string[]).includes(text)) throw new Error(`must be one of ${values.join(', ')}`);
    return text as V;
  };
}

/** Reusable variable schemas. */
export const env = {
  /** Any text; `minLength` with the message a shorter one fails with. */
  string: (fallback?: string, minLength?: { length: number; message: string }) =>
    new EnvVar((text) => {
      if (minLength && text.length < minLength.length) throw new Error(minLength.message);
      return text;
    }, fallback),
  /** An absolute URL (parsed by WHATWG `URL`), kept as written. */
  url: () =>
    new EnvVar((text) => {
      if (!URL.canParse(text)) throw new Error('must be a URL');
      return text;
    }),
  port: (fallback: number) =>
    new EnvVar((text) => number(text, 'an integer', { min: 0, max: 65535 }), String(fallback)),
  int: (fallback: number, min = 0) => new EnvVar((text) => number(text, 'an integer', { min }), String(fallback)),
  number: (fallback: number, limits: { min?: number; max?: number }) =>
    new EnvVar((text) => number(text, 'a number', limits), String(fallback)),
  /** A number above 0. */
  positive: (fallback: number) =>
    new EnvVar((text) => {
      const value = number(text, 'a number');
      if (value <= 0) throw new Error(`must be above 0, not "${text}"`);
      return value;
    }, String(fallback)),
  oneOf: <const V extends string>(values: readonly V[], fallback: NoInfer<V>) => new EnvVar(oneOf(values), fallback),
  bool: (fallback: boolean) => {
    const parse = oneOf(['true', 'false', '1', '0']);
    return new EnvVar((text) => ['true', '1'].includes(parse(text)), String(fallback));
  },
  list: (fallback: string) =>
    new EnvVar(
      (text) =>
        text
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      fallback,
    ),
  logLevel: () => env.oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  mongoUri: () =>
    new EnvVar((text) => {
      if (!text.startsWith('mongodb')) throw new Error('must be a mongodb:// or mongodb+srv:// URI');
      return text;
    }, 'mongodb://127.0.0.1:27017'),
  database: (fallback: string) =>
    new EnvVar((text) => {
      if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new Error('may only hold letters, digits, _ and -');
      return text;
    }, fallback),
};

/** The variables of a service that makes outbound HTTP calls to addresses its users give. */
export const outboundEnvShape = {
  /**
   * Local development and tests only: outbound calls (webhook deliveries, workflow http nodes,
   * agents' http and mcp tools) may reach private, loopback and link-local addresses. Its former
   * name WEBHOOK_ALLOW_PRIVATE_URLS is read while it is unset, for one release.
   */
  ALLOW_PRIVATE_URLS: env.bool(false).formerly('WEBHOOK_ALLOW_PRIVATE_URLS'),
};

/** The tracing variables (the OpenTelemetry SDK's own names); see tracing.ts. */
export const tracingEnvShape = {
  /** Base URL of an OTLP/HTTP receiver (an OpenTelemetry collector); spans go to `<it>/v1/traces`. Unset: no tracing, at no cost. */
  OTEL_EXPORTER_OTLP_ENDPOINT: env.url().orUnset(),
  /** The `service.name` of the process's spans; default: the service's own name. */
  OTEL_SERVICE_NAME: env.string().orUnset(),
  /** Which traces are recorded (the SDK's standard names); default: every request's. */
  OTEL_TRACES_SAMPLER: env.oneOf(
    [
      'always_on',
      'always_off',
      'traceidratio',
      'parentbased_always_on',
      'parentbased_always_off',
      'parentbased_traceidratio',
    ],
    'parentbased_always_on',
  ),
  /** The ratio of the `traceidratio` samplers, 0 to 1. */
  OTEL_TRACES_SAMPLER_ARG: env.number(1, { min: 0, max: 1 }),
};

/** Variables every gRPC service reads. */
export function serviceEnvShape(defaults: { grpcPort: number; database: string; metricsPort: number }) {
  return {
    LOG_LEVEL: env.logLevel(),
    GRPC_HOST: env.string('0.0.0.0'),
    GRPC_PORT: env.port(defaults.grpcPort),
    /**
     * gRPC calls the service has in flight at most; past it a call is refused at once with
     * UNAVAILABLE (the gateway's 503 with Retry-After), before any of its work (docs/operations.md).
     */
    GRPC_MAX_IN_FLIGHT: env.int(96, 1),
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
  KAFKA_CLIENT_ID: env.string().orUnset(),
  KAFKA_TOPIC: env.string('platform.events'),
  KAFKA_TOPIC_PARTITIONS: env.int(6, 1),
};

/** The variables of a service with an outbox (packages/events: the relay and its dead letters). */
export const outboxEnvShape = {
  /** Outbox records that could never be published are kept this long; fractions of a day are allowed. */
  OUTBOX_DEAD_LETTER_RETENTION_DAYS: env.positive(14),
};

const MISSING_DATA_KEY =
  'is required: the keyring that encrypts secrets at rest, as kid:base64key[,kid:base64key] ' +
  '(32-byte keys, the first one current; `npm start` creates one, production sets it from a Secret; see docs/security.md)';

/**
 * `DATA_ENCRYPTION_KEY`, parsed into the SecretBox that seals secrets at rest. Required in every
 * environment: a process that stores secrets never falls back to plaintext.
 */
export function dataEncryptionKeyEnv() {
  return new EnvVar((text) => SecretBox.fromKeyring(text), undefined, false, MISSING_DATA_KEY);
}
