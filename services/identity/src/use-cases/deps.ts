import type { PlanName } from '@agentplatform/service-kit';
import type {
  AccessTokens,
  ApiKeyStore,
  CreditLedger,
  EventOutbox,
  LoginThrottleStore,
  PasswordCheck,
  PublishedKeys,
  RefreshTokenStore,
  TenantStore,
  UserStore,
} from './ports.js';

/** Everything the identity use cases work with, each a port (ports.ts). */
export interface UseCaseDeps {
  users: UserStore;
  tenants: TenantStore;
  refreshTokens: RefreshTokenStore;
  apiKeys: ApiKeyStore;
  credits: CreditLedger;
  loginThrottles: LoginThrottleStore;
  outbox: EventOutbox;
  hasher: PasswordCheck;
  keys: PublishedKeys;
  tokens: AccessTokens;
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
