import type { Outbox } from '@agentplatform/events';
import type { ApiKeyRepository } from '../persistence/api-key.repository.js';
import type { LoginThrottleRepository } from '../persistence/login-throttle.repository.js';
import type { CreditRepository } from '../persistence/credit.repository.js';
import type { RefreshTokenRepository } from '../persistence/refresh-token.repository.js';
import type { TenantRepository } from '../persistence/tenant.repository.js';
import type { UserRepository } from '../persistence/user.repository.js';
import type { PasswordHasher } from '../security/password-hasher.js';
import type { SigningKeyRing } from '../security/signing-key-ring.js';
import type { TokenIssuer } from '../security/token-issuer.js';
import type { PlanName } from '@agentplatform/service-kit';

/** Everything the identity use cases work with. */
export interface UseCaseDeps {
  users: UserRepository;
  tenants: TenantRepository;
  refreshTokens: RefreshTokenRepository;
  apiKeys: ApiKeyRepository;
  credits: CreditRepository;
  loginThrottles: LoginThrottleRepository;
  outbox: Outbox;
  hasher: PasswordHasher;
  keys: SigningKeyRing;
  tokens: TokenIssuer;
  settings: {
    defaultPlan: PlanName;
    welcomeCredits: number;
    lowCreditThreshold: number;
    /** Tenant owners may buy credits for themselves (BILLING_SELF_SERVICE). */
    billingSelfService: boolean;
    /** How long a credit reservation stays open before the sweep releases it. */
    creditHoldTtlMs: number;
    refreshTtlMs: number;
    issuer: string;
    audience: string;
    /** Account lockout after repeated failed logins. */
    lockout: { maxFailures: number; windowMs: number; lockoutMs: number };
  };
}
