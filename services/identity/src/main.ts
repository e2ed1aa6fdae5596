import { identityV1 } from '@agentplatform/contracts/identity-v1';
import { startOutbox } from '@agentplatform/events';
import { bootService, buildIndexes, schedulePruning, serve } from '@agentplatform/service-kit';
import { loadServiceConfig } from './config.js';
import { ApiKeyRepository } from './persistence/api-key.repository.js';
import { ChainedLedger } from './persistence/credit-ledger.js';
import { CreditRepository } from './persistence/credit.repository.js';
import { LoginThrottleRepository } from './persistence/login-throttle.repository.js';
import { RefreshTokenRepository } from './persistence/refresh-token.repository.js';
import { SigningKeyRepository } from './persistence/signing-key.repository.js';
import { TenantRepository } from './persistence/tenant.repository.js';
import { UserRepository } from './persistence/user.repository.js';
import { PasswordHasher } from './security/password-hasher.js';
import { SigningKeyRing } from './security/signing-key-ring.js';
import { TokenIssuer } from './security/token-issuer.js';
import { identityService } from './transport/identity.grpc.js';
import { announceWithdrawnKey } from './use-cases/announce-withdrawn-key.js';
import { releaseExpiredHolds } from './use-cases/credits.js';
import type { UseCaseDeps } from './use-cases/deps.js';

const DAY_MS = 86_400_000;

/** config -> mongo -> kafka (outbox relay) -> signing keys -> grpc server -> graceful shutdown */
async function main(): Promise<void> {
  const config = loadServiceConfig();
  const runtime = await bootService('identity', config);
  const outbox = await startOutbox(runtime, config);

  const users = new UserRepository(runtime.mongo);
  const tenants = new TenantRepository(runtime.mongo);
  const refreshTokens = new RefreshTokenRepository(runtime.mongo);
  const apiKeys = new ApiKeyRepository(runtime.mongo);
  const credits = new CreditRepository(runtime.mongo);
  const signingKeys = new SigningKeyRepository(runtime.mongo);
  const loginThrottles = new LoginThrottleRepository(runtime.mongo);
  // Unique indexes are part of the rules (e-mail, idempotency keys, key generations): build them first.
  await buildIndexes(runtime.mongo);
  const backfilled = await credits.addMissingDue();
  if (backfilled > 0) runtime.logger.info({ backfilled }, 'due entries written for open credit reservations');

  const keys = new SigningKeyRing({
    repository: signingKeys,
    logger: runtime.logger,
    box: config.DATA_ENCRYPTION_KEY,
    legacySecret: config.JWT_KEY_ENCRYPTION_SECRET,
    rotationMs: config.JWT_KEY_ROTATION_DAYS * DAY_MS,
    graceMs: config.JWT_KEY_GRACE_SECONDS * 1000,
    onWithdrawn: (kid) => announceWithdrawnKey({ outbox, signingKeys }, kid),
  });
  await keys.start();
  runtime.lifecycle.onShutdown('signing keys', () => keys.stop());

  const passwordChecks = runtime.metrics.counter(
    'identity_password_checks_total',
    'bcrypt password comparisons (login throttling bounds them per account)',
  );
  const tokens = new TokenIssuer({
    keys,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    ttlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
  });
  const deps: UseCaseDeps = {
    users,
    tenants,
    refreshTokens,
    apiKeys,
    credits: new ChainedLedger(credits),
    loginThrottles,
    outbox,
    hasher: new PasswordHasher(config.BCRYPT_COST, () => passwordChecks.inc()),
    keys,
    tokens,
    settings: {
      defaultPlan: config.DEFAULT_PLAN,
      welcomeCredits: config.WELCOME_CREDITS,
      lowCreditThreshold: config.CREDITS_LOW_THRESHOLD,
      billingSelfService: config.BILLING_SELF_SERVICE,
      creditHoldTtlMs: config.CREDIT_HOLD_TTL_SECONDS * 1000,
      refreshTtlMs: config.REFRESH_TOKEN_TTL_DAYS * DAY_MS,
      issuer: config.JWT_ISSUER,
      audience: config.JWT_AUDIENCE,
      lockout: {
        maxFailures: config.LOGIN_LOCKOUT_ATTEMPTS,
        windowMs: config.LOGIN_LOCKOUT_WINDOW_SECONDS * 1000,
        lockoutMs: config.LOGIN_LOCKOUT_SECONDS * 1000,
      },
    },
  };
  runtime.server.add(identityV1.IdentityServiceDefinition, identityService(deps, runtime.logger));

  let sweeping = false;
  const sweepTimer = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    releaseExpiredHolds(deps)
      .then((released) => {
        if (released > 0) runtime.logger.info({ released }, 'released expired credit reservations');
      })
      .catch((error) => runtime.logger.warn({ err: error }, 'credit reservation sweep failed'))
      .finally(() => (sweeping = false));
  }, config.CREDIT_SWEEP_INTERVAL_SECONDS * 1000);
  sweepTimer.unref();
  runtime.lifecycle.onShutdown('credit reservation sweep', () => clearInterval(sweepTimer));
  schedulePruning(runtime.lifecycle, runtime.logger, 'login throttles', config.PRUNE_INTERVAL_MS, () =>
    loginThrottles.pruneExpired(new Date(), 500),
  );
  await serve(runtime, config);
}

main().catch((error) => {
  process.stderr.write(`identity failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
