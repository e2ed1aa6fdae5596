import type { identityV1 } from '@agentplatform/contracts';
import type { Logger } from '@agentplatform/service-kit';
import type { Backends } from '../clients/backends.js';
import type { GatewayConfig } from '../config.js';
import type { Caller } from '../http/route.js';

/** What route factories receive. */
export interface RouteDeps {
  backends: Backends;
  config: GatewayConfig;
  logger: Logger;
  /** Drops this replica's cached credentials for a change it made itself (before it answers). */
  revocations?: { forgetApiKey(keyId: string): void; forgetSession(sessionId: string): void };
  /** An authorized user's GetMe answer, cached with the credentials (see access-guard.ts). */
  profiles?: { profile(caller: Caller): Promise<identityV1.GetMeResponse> };
}
