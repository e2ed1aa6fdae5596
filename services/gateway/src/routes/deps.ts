import type { Logger } from '@agentplatform/service-kit';
import type { Backends } from '../clients/backends.js';
import type { GatewayConfig } from '../config.js';

/** What route factories receive. */
export interface RouteDeps {
  backends: Backends;
  config: GatewayConfig;
  logger: Logger;
}
