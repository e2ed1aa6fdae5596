import type { Outbox } from '@agentplatform/events';
import type { ExecutionRepository } from '../persistence/execution.repository.js';

/**
 * The engine's ports: what each part needs of the execution store and the outbox. The mongoose
 * repository implements them all; src/testing/in-memory.ts has a fake of each for the unit specs.
 */

/** Leases of running executions: take over expired ones, renew held ones, hand them back. */
export type LeaseStore = Pick<ExecutionRepository, 'claimExpired' | 'renewLeases' | 'releaseLeases'>;

/** A run's writes: the insert of a new execution, then its progress while the lease is held. */
export type CheckpointStore = Pick<ExecutionRepository, 'insert' | 'save'>;

/** Everything the engine reads and writes (the two above, and the read behind waitFor). */
export type EngineStore = LeaseStore & CheckpointStore & Pick<ExecutionRepository, 'get'>;

/** Events written in the same transaction as the state change they announce. */
export type EventOutbox = Pick<Outbox, 'run'>;
