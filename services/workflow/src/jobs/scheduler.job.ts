import type { ServiceRuntime } from '@agentplatform/service-kit';

export interface SchedulerOptions {
  /** How often due workflows are looked for: the most a tick waits for its run on an idle replica. */
  pollIntervalMs: number;
  /** Due workflows handled per round; a full round is followed by the next at once. */
  batchSize: number;
  /** A claim left in `starting` this long belongs to a dead replica and is taken over. */
  claimLeaseMs: number;
  /** Rounds in flight at once, so runs that are slow to start do not hold back later ticks. */
  maxRounds: number;
}

/**
 * The work of the scheduler's rounds (use-cases/run-scheduled-ticks.ts), bound by main.ts to this
 * replica's deps and engine owner: a job drives the rules, it does not import them.
 */
export interface ScheduleRounds {
  /** Claims and starts the due ticks; tells `onClaimed` how many were due once they are claimed. */
  run(now: Date, batch: number, onClaimed: (due: number) => void): Promise<unknown>;
  /** Takes over claims left in `starting` longer than `claimLeaseMs`; answers how many. */
  recover(now: Date, claimLeaseMs: number): Promise<number>;
}

/**
 * Runs schedule ticks on every replica (docs/workflow-engine.md, "Schedules"). Each round is one indexed
 * query for workflows whose next_run_at has come, so an idle replica costs a few empty queries a
 * second however many schedules exist; claims make every tick run once across all replicas.
 * A round claims and advances its ticks first, then waits for their runs to start; the next round
 * begins on time meanwhile (up to `maxRounds` together), since what it finds due is already past
 * the ticks the rounds before it claimed.
 */
export function startScheduler(runtime: ServiceRuntime, work: ScheduleRounds, options: SchedulerOptions): void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const rounds = new Set<Promise<void>>();
  let recovering: Promise<void> | undefined;
  let lastRecovery = 0;

  const recover = () => {
    const now = new Date();
    if (recovering || now.getTime() - lastRecovery < Math.min(options.claimLeaseMs, 5_000)) return;
    lastRecovery = now.getTime();
    recovering = work
      .recover(now, options.claimLeaseMs)
      .then(
        (recovered) => {
          if (recovered > 0)
            runtime.logger.info({ claims: recovered }, 'took over schedule claims of a stopped replica');
        },
        (error) => runtime.logger.warn({ err: error }, 'schedule claim recovery failed'),
      )
      .finally(() => (recovering = undefined));
  };

  const tick = () => {
    if (stopped) return;
    recover();
    if (rounds.size >= options.maxRounds) return schedule(options.pollIntervalMs);
    let planned = false;
    const next = (ms: number) => {
      if (planned) return;
      planned = true;
      schedule(ms);
    };
    // The next round is planned as soon as this one has claimed and advanced its ticks: at once
    // after a full batch (more are due), else after the poll interval.
    const round: Promise<void> = work
      .run(new Date(), options.batchSize, (due) => next(due >= options.batchSize ? 0 : options.pollIntervalMs))
      .then(
        () => undefined,
        (error) => runtime.logger.warn({ err: error }, 'schedule round failed'),
      )
      .finally(() => {
        rounds.delete(round);
        next(options.pollIntervalMs);
      });
    rounds.add(round);
  };

  const schedule = (ms: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(tick, ms);
    timer.unref();
  };

  schedule(0);
  runtime.lifecycle.onShutdown('scheduler', async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await Promise.all([...rounds, recovering]);
  });
}
