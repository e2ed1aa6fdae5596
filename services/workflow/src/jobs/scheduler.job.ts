import type { ServiceRuntime } from '@agentplatform/service-kit';
import { recoverStaleClaims, runScheduledTicks, type SchedulerDeps } from '../use-cases/run-scheduled-ticks.js';

export interface SchedulerOptions {
  /** How often due workflows are looked for: the most a tick waits for its run on an idle replica. */
  pollIntervalMs: number;
  /** Due workflows handled per round; a full round is followed by the next at once. */
  batchSize: number;
  /** A claim left in `starting` this long belongs to a dead replica and is taken over. */
  claimLeaseMs: number;
}

/**
 * Runs schedule ticks on every replica (docs/workflows.md, "Schedules"). Each round is one indexed
 * query for workflows whose next_run_at has come, so an idle replica costs a few empty queries a
 * second however many schedules exist; claims make every tick run once across all replicas.
 */
export function startScheduler(runtime: ServiceRuntime, deps: SchedulerDeps, options: SchedulerOptions): void {
  // Claims carry the replica's engine owner id, which its logs and leases carry too.
  const owner = deps.engine.owner;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let lastRecovery = 0;

  const round = async (): Promise<boolean> => {
    const now = new Date();
    const result = await runScheduledTicks(deps, owner, now, options.batchSize);
    if (now.getTime() - lastRecovery >= Math.min(options.claimLeaseMs, 5_000)) {
      lastRecovery = now.getTime();
      const recovered = await recoverStaleClaims(deps, owner, now, options.claimLeaseMs);
      if (recovered > 0) runtime.logger.info({ claims: recovered }, 'took over schedule claims of a stopped replica');
    }
    return result.due >= options.batchSize;
  };

  const loop = () => {
    if (stopped) return;
    running = round().then(
      (more) => schedule(more ? 0 : options.pollIntervalMs),
      (error) => {
        runtime.logger.warn({ err: error }, 'schedule round failed; retrying');
        schedule(options.pollIntervalMs);
      },
    );
  };
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(loop, ms);
    timer.unref();
  };

  schedule(0);
  runtime.lifecycle.onShutdown('scheduler', async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await running;
  });
}
