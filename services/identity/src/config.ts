import {
  dataEncryptionKeyEnv,
  env,
  kafkaEnvShape,
  outboxEnvShape,
  loadConfig,
  PLAN_NAMES,
  serviceEnvShape,
} from '@agentplatform/service-kit';

export const configShape = {
  ...serviceEnvShape({ grpcPort: 50051, metricsPort: 9461, database: 'identity' }),
  ...kafkaEnvShape,
  ...outboxEnvShape,
  /** Lifetime of an access token in seconds (docs/design.md section 4: 900). */
  ACCESS_TOKEN_TTL_SECONDS: env.int(900, 30),
  REFRESH_TOKEN_TTL_DAYS: env.int(30, 1),
  JWT_ISSUER: env.string('agentplatform-identity'),
  JWT_AUDIENCE: env.string('agentplatform-api'),
  /** Encrypts the JWT signing keys' private halves at rest (docs/security.md); required. */
  DATA_ENCRYPTION_KEY: dataEncryptionKeyEnv(),
  /**
   * Retired: the secret older releases encrypted the signing keys with. Set it only while keys
   * stored that way remain: identity re-encrypts them under DATA_ENCRYPTION_KEY on start.
   */
  JWT_KEY_ENCRYPTION_SECRET: env.string(undefined, { length: 16, message: 'must be at least 16 characters' }).orUnset(),
  /** A new signing key is made when the newest one is older than this. */
  JWT_KEY_ROTATION_DAYS: env.int(30, 1),
  /** How long a replaced key stays in the JWKS, so tokens it signed keep verifying. */
  JWT_KEY_GRACE_SECONDS: env.int(86_400, 60),
  /** bcrypt cost; 10 is OWASP's floor and keeps login benchmarks meaningful. */
  BCRYPT_COST: env.int(10, 10),
  /** Failed logins per account within the window that lock it (OWASP authentication guidance). */
  LOGIN_LOCKOUT_ATTEMPTS: env.int(5, 1),
  LOGIN_LOCKOUT_WINDOW_SECONDS: env.int(900, 1),
  LOGIN_LOCKOUT_SECONDS: env.int(900, 1),
  /** How often each replica deletes login-throttle counters past their window and lock. */
  PRUNE_INTERVAL_MS: env.int(60 * 60_000, 100),
  DEFAULT_PLAN: env.oneOf(PLAN_NAMES, 'free'),
  WELCOME_CREDITS: env.int(1_000),
  CREDITS_LOW_THRESHOLD: env.int(100),
  /**
   * Whether tenant owners may buy credits for themselves (docs/design.md section 5). Off, credits
   * come only from an operator grant. Off by default so that a deployment that forgets it does
   * not give credits away; `npm start`, the tests and compose turn it on.
   */
  BILLING_SELF_SERVICE: env.bool(false),
  /**
   * A credit reservation (a chat's estimate, a run's credit) that is neither settled nor released
   * within this time is released by the sweep: its holder crashed or lost track of it. Longer
   * than any chat or run start takes, so a live holder always settles first.
   */
  CREDIT_HOLD_TTL_SECONDS: env.int(900, 1),
  /** How often each replica looks for expired credit reservations. */
  CREDIT_SWEEP_INTERVAL_SECONDS: env.int(30, 1),
};

export type Config = ReturnType<typeof loadServiceConfig>;

export function loadServiceConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(configShape, source);
}
