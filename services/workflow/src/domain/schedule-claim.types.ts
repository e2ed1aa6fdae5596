/**
 * One schedule tick of one workflow, claimed by the replica that runs it. Its id is
 * `<workflowId>@<tick ms>` and the store refuses a second claim of the same id: whoever claims
 * first runs the tick, everyone else leaves it.
 *
 * - `starting`: claimed; the execution (`executionId`, chosen at claim time) is being started.
 *   A claim left here longer than the claim lease belongs to a replica that died: another replica
 *   takes it over and starts the same execution id, which the engine stores at most once.
 * - `started`: the execution exists.
 * - `cancelled`: the workflow was paused or deleted before its run started.
 * - `failed`: the run could not start (`error`, e.g. insufficient credits).
 */
export type ClaimState = 'starting' | 'started' | 'cancelled' | 'failed';

export interface ScheduleClaim {
  id: string;
  tenantId: string;
  workflowId: string;
  tickAt: Date;
  executionId: string;
  state: ClaimState;
  owner: string;
  claimedAt: Date;
  error?: string;
  /** Deleted after this (a TTL index where the server has them; the retention job everywhere). */
  expiresAt: Date;
}

/** A tick's claim id: the same for every replica, so the store's unique id lets one claim win. */
export function claimId(workflowId: string, tickAt: Date): string {
  return `${workflowId}@${tickAt.getTime()}`;
}
