import { Cron } from 'croner';
import type { JsonObject, WorkflowNode } from './workflow.types.js';

/**
 * Cron schedules (docs/design.md section 7): the only module that knows croner, so the library can be
 * swapped. A schedule is the `schedule` trigger node's `cron` (5 or 6 fields, seconds first when
 * 6) in its `timezone` (IANA, default UTC).
 */
export interface Schedule {
  cron: string;
  timezone: string;
  input: JsonObject;
  /** How old the newest tick missed while no replica ran may be and still run once (0: never). */
  catchUpMs: number;
}

export const DEFAULT_TIMEZONE = 'UTC';

/** Ticks looked at from now to find a schedule's closest two ticks (docs/workflow-engine.md). */
export const INTERVAL_SAMPLE_TICKS = 1_000;

/** Minutes that fire looked at, at most, for two of them in a row (docs/workflow-engine.md). */
export const INTERVAL_SAMPLE_MINUTES = 100;

const MINUTE_MS = 60_000;

/** A cron pattern compiled for one timezone; compiling is the expensive part, so it is cached. */
const compiled = new Map<string, Cron>();
const MAX_COMPILED = 20_000;

/**
 * Whether a timezone name is UTC under another spelling (`UTC`, `Etc/UTC`, `GMT`, `Zulu`, ...).
 * croner then computes in a fixed offset of 0, the same ticks without its per-step timezone
 * conversion, which made each next tick cost 1-1.6 ms instead of 70-100 us on this machine: the
 * scheduler computes one per run, 170 a second in the benchmark, and most schedules are in UTC.
 */
function isUtc(timezone: string): boolean {
  const canonical = new Intl.DateTimeFormat('en-US', { timeZone: timezone }).resolvedOptions().timeZone;
  return ['UTC', 'Etc/UTC', 'GMT', 'Etc/GMT'].includes(canonical);
}

function cronFor(cron: string, timezone: string): Cron {
  const key = `${timezone}\u0000${cron}`;
  let job = compiled.get(key);
  if (!job) {
    const zone = isUtc(timezone) ? { utcOffset: 0 } : { timezone };
    job = new Cron(cron, { paused: true, mode: '5-or-6-parts', ...zone });
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(key, job);
  }
  return job;
}

/** Why a cron pattern is invalid, or undefined when it is valid. */
export function cronProblem(cron: string): string | undefined {
  try {
    const job = new Cron(cron, { paused: true, mode: '5-or-6-parts' });
    if (job.nextRun(new Date()) === null) return 'never fires';
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message.replace(/^CronPattern: /, '') : String(error);
  }
}

/** Whether the runtime knows an IANA timezone name. */
export function isTimezone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/** The schedule node of a graph, if it has one. */
export function scheduleOf(nodes: readonly WorkflowNode[]): Schedule | undefined {
  const node = nodes.find((n) => n.type === 'schedule');
  if (!node || typeof node.config.cron !== 'string') return undefined;
  const { cron, timezone, input, catch_up_ms: catchUp } = node.config;
  return {
    cron,
    timezone: typeof timezone === 'string' ? timezone : DEFAULT_TIMEZONE,
    input: input !== null && typeof input === 'object' && !Array.isArray(input) ? input : {},
    catchUpMs: typeof catchUp === 'number' ? catchUp : 0,
  };
}

/** The first tick strictly after `after` (null when the pattern never fires again). */
export function nextTick(schedule: Pick<Schedule, 'cron' | 'timezone'>, after: Date): Date | null {
  return cronFor(schedule.cron, schedule.timezone).nextRun(after);
}

/** The newest tick at or before `at`. */
export function latestTickAtOrBefore(schedule: Pick<Schedule, 'cron' | 'timezone'>, at: Date): Date | undefined {
  // previousRuns looks strictly before its reference, in whole seconds: ask from just after `at`.
  const [latest] = cronFor(schedule.cron, schedule.timezone).previousRuns(1, new Date(at.getTime() + 1));
  return latest && latest.getTime() <= at.getTime() ? latest : undefined;
}

/**
 * The smallest gap between consecutive ticks from `from` when it is under `minimumMs` (what a
 * plan allows), or undefined when no two ticks are that close (docs/workflow-engine.md, "Schedules").
 *
 * Listing 1,000 ticks cost croner 100-600 ms of CPU (one save blocked the service's event loop
 * that long), so the gaps under a minute are worked out from one minute's ticks instead: every
 * tick falls on a second of the pattern's seconds field, the same seconds in every minute that
 * fires (timezone offsets are whole minutes), so two ticks less than a minute apart are either
 * two of those seconds in one minute or the last of one minute and the first of the next, when
 * two minutes in a row fire. The latter is looked for over the next INTERVAL_SAMPLE_MINUTES minutes
 * that fire (and INTERVAL_SAMPLE_TICKS ticks). A minimum over a minute (no plan has one) takes the
 * plain sample of INTERVAL_SAMPLE_TICKS ticks.
 */
export function closestTicksUnder(
  schedule: Pick<Schedule, 'cron' | 'timezone'>,
  minimumMs: number,
  from: Date,
): number | undefined {
  const job = cronFor(schedule.cron, schedule.timezone);
  if (minimumMs > MINUTE_MS) {
    const ticks = job.nextRuns(INTERVAL_SAMPLE_TICKS, from);
    let smallest = Infinity;
    for (let i = 1; i < ticks.length; i++) smallest = Math.min(smallest, ticks[i]!.getTime() - ticks[i - 1]!.getTime());
    return smallest < minimumMs ? smallest : undefined;
  }
  const first = job.nextRun(from);
  if (!first) return undefined;
  let minute = Math.floor(first.getTime() / MINUTE_MS) * MINUTE_MS;
  // The offsets of the ticks within the first minute that fires (ascending; at most 60).
  const offsets: number[] = [];
  for (let tick = job.nextRun(new Date(minute - 1)); tick && tick.getTime() < minute + MINUTE_MS;) {
    offsets.push(tick.getTime() - minute);
    tick = job.nextRun(tick);
  }
  let within = Infinity;
  for (let i = 1; i < offsets.length; i++) within = Math.min(within, offsets[i]! - offsets[i - 1]!);
  const last = offsets[offsets.length - 1]!;
  const across = MINUTE_MS - last + offsets[0]!;
  if (across >= minimumMs || across >= within) return within < minimumMs ? within : undefined;
  // Closer across a minute boundary than within a minute: only if two minutes in a row fire.
  let ticks = offsets.length;
  for (let minutes = 1; minutes < INTERVAL_SAMPLE_MINUTES && ticks < INTERVAL_SAMPLE_TICKS; minutes++) {
    const next = job.nextRun(new Date(minute + last));
    if (!next) break;
    if (next.getTime() - (minute + last) === across) return across;
    minute = Math.floor(next.getTime() / MINUTE_MS) * MINUTE_MS;
    ticks += offsets.length;
  }
  return within < minimumMs ? within : undefined;
}

/**
 * How late a tick may be reached and still count as on time: replicas poll often, so only a tick
 * missed while no replica ran (or while the only one was stalled this long) is later than this.
 */
export const ON_TIME_TOLERANCE_MS = 10_000;

export interface TickDecision {
  /** The tick to run now, if any. */
  run?: Date;
  /** What next_run_at becomes (null when the pattern never fires again). */
  next: Date | null;
  /** Ticks passed over without a run (missed while no replica ran). */
  skipped: number;
}

/**
 * What to do with a workflow whose next_run_at (`due`) has come. A due tick reached within
 * ON_TIME_TOLERANCE_MS runs. Ticks older than that were missed while no replica ran: they are
 * skipped, except that the newest of them runs once when it is at most `catchUpMs` old. Either
 * way next_run_at moves past `now` (or to the next tick after `due` when that is still ahead).
 */
export function decideTick(schedule: Schedule, due: Date, now: Date): TickDecision {
  const nowMs = now.getTime();
  if (nowMs - due.getTime() <= ON_TIME_TOLERANCE_MS) return { run: due, next: nextTick(schedule, due), skipped: 0 };
  const latest = latestTickAtOrBefore(schedule, now) ?? due;
  const next = nextTick(schedule, now);
  const age = nowMs - latest.getTime();
  const passed = countTicks(schedule, due, latest);
  if (age <= ON_TIME_TOLERANCE_MS || age <= schedule.catchUpMs) {
    return { run: latest, next, skipped: passed - 1 };
  }
  return { next, skipped: passed };
}

/**
 * Ticks from `from` to `to`, both included, counted up to a bound (only a log figure). Stepped one
 * tick at a time up to `to`: listing the bound's 1,000 ticks every time, as the first version did,
 * cost tens of ms of croner CPU per late workflow, so a scheduler that fell 10 s behind spent two
 * thirds of its CPU here and fell further behind (docs/performance.md, "Schedules at 10,000").
 */
function countTicks(schedule: Schedule, from: Date, to: Date): number {
  const bound = 1_000;
  const job = cronFor(schedule.cron, schedule.timezone);
  let n = 0;
  for (let tick = job.nextRun(new Date(from.getTime() - 1)); tick && tick.getTime() <= to.getTime() && n < bound;) {
    n++;
    tick = job.nextRun(tick);
  }
  return Math.max(n, 1);
}
