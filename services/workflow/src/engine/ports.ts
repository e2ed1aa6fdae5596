import type { Outbox } from '@agentplatform/events';
import type { ExecutionRepository } from '../persistence/execution.repository.js';
import type { HeldRunRepository } from '../persistence/held-run.repository.js';

/**
 * The engine's ports: what each part needs of the execution store and the outbox. The mongoose
 * repository implements them all; src/testing/in-memory.ts has a fake of each for the unit specs.
 */

/** Leases of running executions: take over expired ones, renew held ones, hand them back. */
export type LeaseStore = Pick<ExecutionRepository, 'claimExpired' | 'renewLeases' | 'releaseLeases'>;

/** A run's writes: the insert of a new execution, then its progress while the lease is held. */
export type CheckpointStore = Pick<ExecutionRepository, 'insert' | 'save'>;

/** What the line of queued runs reads and writes of the executions (held-runs.ts). */
export type QueuedRunStore = Pick<ExecutionRepository, 'insert' | 'get' | 'countRunning' | 'startQueued'>;

/** Everything the engine reads and writes (the above, and the read behind waitFor). */
export type EngineStore = LeaseStore & CheckpointStore & QueuedRunStore;

/** The tenants' lines of queued runs (held-runs.ts). */
export type HeldRunStore = Pick<HeldRunRepository, 'add' | 'has' | 'first' | 'tenants' | 'remove'>;

/** A tenant's bound on executions in flight, and the plan it comes from (docs/design.md section 5). */
export interface InFlightLimit {
  limit: number;
  plan: string;
}

/** Where the bound comes from (the tenant's plan, lowered by EXECUTIONS_IN_FLIGHT_MAX when set). */
export interface InFlightLimits {
  limitOf(tenantId: string): Promise<InFlightLimit>;
}

/** Events written in the same transaction as the state change they announce. */
export type EventOutbox = Pick<Outbox, 'run'>;
