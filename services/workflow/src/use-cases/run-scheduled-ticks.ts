import { DomainError, isDuplicateKeyError, newId } from '@agentplatform/service-kit';
import { decideTick, scheduleOf } from '../domain/schedule.js';
import type { Workflow } from '../domain/workflow.types.js';
import { claimId, type ScheduleClaim } from '../domain/schedule-claim.types.js';
import type { UseCaseDeps } from './deps.js';
import { startExecution } from './start-execution.js';

export type SchedulerDeps = Pick<
  UseCaseDeps,
  'workflows' | 'executions' | 'engine' | 'credits' | 'logger' | 'settings' | 'claims'
>;

/** How long a claim is kept: far longer than any tick can be contended. */
export const CLAIM_TTL_MS = 24 * 60 * 60_000;

/** A tick whose run could not start for this long (a dependency down) is given up. */
export const MAX_START_DELAY_MS = 10 * 60_000;

/** Refusals a retry will not change; anything else (a timeout, a peer down) is retried. */
const FINAL_REFUSALS = new Set(['insufficient_credits', 'validation_error', 'not_found', 'forbidden', 'conflict']);

export interface TickRound {
  /** Due workflows looked at. */
  due: number;
  /** Runs this replica started. */
  started: number;
}

/**
 * One round of the scheduler (docs/workflow-engine.md, "Schedules"): the due workflows, oldest tick
 * first, in one batch. For each, this replica inserts a claim for the tick to run (a duplicate key
 * means another replica has it), moves next_run_at on with a conditional write, reads the status
 * again after its claim (a pause or delete that came first cancels the run; one that comes later
 * waits for the claim to leave `starting`) and starts the run through startExecution, so credits
 * are reserved like any run's.
 */
export async function runScheduledTicks(
  deps: SchedulerDeps,
  owner: string,
  now: Date,
  batch: number,
  /** Told how many workflows were due once their ticks are claimed and advanced, before the runs start. */
  onClaimed: (due: number) => void = () => undefined,
): Promise<TickRound> {
  const due = await deps.workflows.due(now, batch);
  if (due.length === 0) {
    onClaimed(0);
    return { due: 0, started: 0 };
  }
  const moves: Array<{ id: string; from: Date; to: Date | null }> = [];
  const wanted: Array<{ claim: ScheduleClaim; workflow: Workflow }> = [];
  for (const workflow of due) {
    const from = workflow.nextRunAt!;
    const schedule = workflow.status === 'active' ? scheduleOf(workflow.nodes) : undefined;
    if (!schedule) {
      moves.push({ id: workflow.id, from, to: null });
      continue;
    }
    const decision = decideTick(schedule, from, now);
    moves.push({ id: workflow.id, from, to: decision.next });
    if (decision.skipped > 0) {
      deps.logger.info(
        { workflow_id: workflow.id, tenant_id: workflow.tenantId, skipped: decision.skipped, from },
        'skipped schedule ticks missed while no replica ran',
      );
    }
    if (!decision.run) continue;
    wanted.push({
      workflow,
      claim: {
        id: claimId(workflow.id, decision.run),
        tenantId: workflow.tenantId,
        workflowId: workflow.id,
        tickAt: decision.run,
        executionId: newId('exe'),
        state: 'starting',
        owner,
        claimedAt: now,
        expiresAt: new Date(now.getTime() + CLAIM_TTL_MS),
      },
    });
  }
  const won = await deps.claims.claim(wanted.map((w) => w.claim));
  // Advanced after claiming: a replica that dies in between leaves next_run_at due, and whoever
  // polls next meets the claim (a duplicate), advances, and leaves the run to claim recovery.
  await deps.workflows.advance(moves);
  onClaimed(due.length);
  const mine = wanted.filter((_, i) => won[i]);
  const started = await startClaimed(deps, mine);
  return { due: due.length, started };
}

/** Starts the runs of claims this replica holds, then records how each ended. */
async function startClaimed(
  deps: SchedulerDeps,
  mine: Array<{ claim: ScheduleClaim; workflow: Workflow }>,
): Promise<number> {
  if (mine.length === 0) return 0;
  const statuses = await deps.workflows.statuses(mine.map((m) => m.workflow.id));
  const started: string[] = [];
  const cancelled: string[] = [];
  const failed = new Map<string, string[]>();
  await Promise.all(
    mine.map(async ({ claim, workflow }) => {
      if (statuses.get(workflow.id) !== 'active') {
        cancelled.push(claim.id);
        return;
      }
      const outcome = await startOne(deps, claim, workflow);
      if (outcome === 'started') started.push(claim.id);
      // Left `starting`: recovery starts it once the claim lease has passed.
      else if (outcome !== 'retry') failed.set(outcome, [...(failed.get(outcome) ?? []), claim.id]);
    }),
  );
  await deps.claims.settle(started, 'started');
  await deps.claims.settle(cancelled, 'cancelled');
  for (const [error, ids] of failed) await deps.claims.settle(ids, 'failed', error);
  return started.length;
}

/**
 * Starts a claimed tick's run; answers 'started', 'retry' when the failure may pass (identity did
 * not answer in time, say), or the refusal that will not.
 */
async function startOne(deps: SchedulerDeps, claim: ScheduleClaim, workflow: Workflow): Promise<string> {
  const schedule = scheduleOf(workflow.nodes);
  try {
    await startExecution(deps, {
      workflow,
      trigger: 'schedule',
      input: schedule?.input ?? {},
      runFirst: true,
      seed: { id: claim.executionId },
      // A tick is never lost to the tenant's executions in flight: its run queues.
      whenBusy: 'queue',
    });
    return 'started';
  } catch (error) {
    // The same execution id stored already: a replica that took this claim over started it.
    if (isDuplicateKeyError(error)) return 'started';
    const reason = error instanceof DomainError ? error.code : 'internal_error';
    const retry = !FINAL_REFUSALS.has(reason);
    deps.logger.warn(
      { err: error, workflow_id: workflow.id, tenant_id: workflow.tenantId, tick_at: claim.tickAt, reason },
      retry ? 'a scheduled run could not start yet; its claim is retried' : 'a scheduled run could not start',
    );
    return retry ? 'retry' : reason;
  }
}

/**
 * Takes over claims a dead replica left in `starting` (older than `leaseMs`) one at a time: the
 * execution it may have stored already counts as started; otherwise the run starts now, under the
 * execution id chosen at claim time, unless the workflow was paused or deleted meanwhile.
 */
export async function recoverStaleClaims(
  deps: SchedulerDeps,
  owner: string,
  now: Date,
  leaseMs: number,
): Promise<number> {
  let recovered = 0;
  for (;;) {
    const claim = await deps.claims.takeOverStale(owner, new Date(now.getTime() - leaseMs), new Date());
    if (!claim) return recovered;
    recovered++;
    if ((await deps.executions.existing([claim.executionId])).size > 0) {
      await deps.claims.settle([claim.id], 'started');
      continue;
    }
    const workflow = await deps.workflows.get(claim.tenantId, claim.workflowId);
    if (!workflow || workflow.status !== 'active') {
      await deps.claims.settle([claim.id], 'cancelled');
      continue;
    }
    if (now.getTime() - claim.tickAt.getTime() > MAX_START_DELAY_MS) {
      await deps.claims.settle([claim.id], 'failed', 'not started in time');
      continue;
    }
    const outcome = await startOne(deps, claim, workflow);
    if (outcome === 'started') await deps.claims.settle([claim.id], 'started');
    else if (outcome !== 'retry') await deps.claims.settle([claim.id], 'failed', outcome);
  }
}

/**
 * Pause and delete answer only once no run of the workflow is being started, so nothing starts
 * after they answered. A claim stuck in `starting` (its replica died) is waited for at most
 * `maxWaitMs`; recovery then finds the workflow paused or gone and cancels it.
 */
export async function waitForScheduledStarts(
  claims: Pick<UseCaseDeps['claims'], 'startingFor'>,
  workflowId: string,
  maxWaitMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + maxWaitMs;
  while ((await claims.startingFor(workflowId)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
