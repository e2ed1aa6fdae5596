/** How the embedding backlog gives way to this replica's bursts of writes (see BurstPacer). */
export interface PacingOptions {
  /**
   * Longest the backlog waits for this replica's writes to pause before it embeds, counted from
   * the first item of a burst (see BurstPacer.yieldToWrites); 0: it never waits.
   */
  yieldMs: number;
  /** A pause this long in the replica's writes ends a burst (default QUIET_MS). */
  quietMs?: number;
  /**
   * Share of one core the model may take while a burst goes on past `yieldMs` (default
   * BURST_SHARE); 1: all it can.
   */
  burstShare?: number;
  /**
   * The writes' demand on the model is measured over windows this long (default DEMAND_WINDOW_MS):
   * see BurstPacer.outrunsShare.
   */
  demandWindowMs?: number;
}

/**
 * The pause in this replica's writes after which the backlog embeds: a burst's writes (API adds,
 * a chat's episodic memory, content updates) follow each other closer than this.
 */
const QUIET_MS = 100;

/**
 * While a burst of writes goes on past `yieldMs`, the backlog takes at most this share of one core
 * (unless the writes alone need more, see BurstPacer.outrunsShare): after each batch it rests as
 * long as its model calls took. The request work of the burst keeps the other half and the other
 * cores; the backlog drains at half its rate meanwhile, and at full rate once the writes pause.
 * Half, not a quarter: at a quarter, the soak's steady 40 requests/s (12 chats/s, each kept as an
 * episodic memory, and 10 adds/s) outran the backlog by about 7 items/s on two cores.
 */
const BURST_SHARE = 0.5;

/**
 * How long a window of writes is, over which their demand on the model is measured (see
 * BurstPacer.outrunsShare): long enough to average a few hundred writes at the soak's steady load,
 * short enough that the end of an overload is seen within seconds.
 */
const DEMAND_WINDOW_MS = 5_000;

/**
 * The embedding backlog's pacing around this replica's bursts of writes: it follows the writes
 * (`write`) and the backlog catching up with them (`caughtUp`), and makes the backlog wait before
 * a batch (`yieldToWrites`) and rest after one (`pace`) while a burst goes on.
 */
export class BurstPacer {
  /** Ends a wait in yieldToWrites or pace (stop). */
  private unyield: (() => void) | undefined;
  private stopped = false;
  /** When this replica's first write that the backlog has not caught up with yet woke it. */
  private burstSince: number | undefined;
  /** When this replica's latest write woke it. */
  private lastWrite = 0;
  /**
   * The demand window in progress: the work written on this replica, and the work embedded with
   * the model's time on it (work: the texts' modelWork, in which any mix of lengths compares).
   */
  private window = { since: Date.now(), written: 0, embedded: 0, modelMs: 0 };
  /** The last whole window's demand on the model, in its share of one core (see outrunsShare). */
  private demand = 0;
  /** The model's time per unit of work in the last window that embedded any (ms). */
  private msPerWork: number | undefined;

  constructor(private readonly options: PacingOptions) {}

  /** A write on this replica left texts of `work` (their modelWork) without a vector. */
  write(work: number): void {
    const now = Date.now();
    this.roll(now);
    this.window.written += work;
    this.lastWrite = now;
    this.burstSince ??= now;
  }

  /** The last whole window's writes' need of the model, in its share of one core (see outrunsShare). */
  get writeDemand(): number {
    return this.demand;
  }

  /** A claim made at `claimedAt` found nothing: the burst it caught up with, if any, is over. */
  caughtUp(claimedAt: number): void {
    if (this.burstSince !== undefined && this.burstSince <= claimedAt) this.burstSince = undefined;
  }

  /** Ends a wait at once, and every wait after. */
  stop(): void {
    this.stopped = true;
    this.unyield?.();
  }

  /**
   * Gives the cores to a burst of writes on this replica: while they keep coming (one within the
   * last `quietMs`), the backlog waits, so that the model's CPU (several milliseconds per item)
   * does not compete with the writes' own. It never waits longer than `yieldMs` after the first
   * write of the burst: from then on it works until it has caught up (found nothing to claim),
   * at `burstShare` of a core while the burst goes on (see pace) and at full rate once it pauses.
   * Items are lexically searchable meanwhile. Only this replica's writes count: a replica that
   * takes no writes embeds the others' items at once.
   */
  async yieldToWrites(): Promise<void> {
    const quietMs = this.options.quietMs ?? QUIET_MS;
    while (!this.stopped && this.burstSince !== undefined && this.options.yieldMs > 0) {
      const until = Math.min(this.lastWrite + quietMs, this.burstSince + this.options.yieldMs);
      const wait = until - Date.now();
      if (wait <= 0) return;
      await this.rest(wait);
    }
  }

  /**
   * After a batch of `work` whose model calls took `modelMs`, during a burst that has outlasted
   * `yieldMs`: rests so that the model's share of one core stays at `burstShare`, or until the
   * writes pause (then it goes on at full rate at once). Outside a burst, or with `yieldMs` 0, it
   * does not rest, nor while the writes alone need more than the share (outrunsShare).
   * Only the model's time counts: the claim's and the store's round trips wait on the database,
   * and counting them (a loaded stand-in makes them slow) left the model well under its share.
   */
  async pace(modelMs: number, work: number): Promise<void> {
    this.roll(Date.now());
    this.window.embedded += work;
    this.window.modelMs += modelMs;
    const share = this.options.burstShare ?? BURST_SHARE;
    if (share >= 1 || this.options.yieldMs <= 0 || !this.inBurst() || this.outrunsShare(share)) return;
    const until = Date.now() + (modelMs * (1 - share)) / share;
    const quietMs = this.options.quietMs ?? QUIET_MS;
    while (!this.stopped && this.inBurst()) {
      const wait = Math.min(until, this.lastWrite + quietMs) - Date.now();
      if (wait <= 0) return;
      await this.rest(wait);
    }
  }

  /** True while this replica's writes keep coming (the last one less than `quietMs` ago). */
  private inBurst(): boolean {
    return this.burstSince !== undefined && Date.now() - this.lastWrite < (this.options.quietMs ?? QUIET_MS);
  }

  /**
   * Whether the writes alone need more of the model than `share`: the last window's work written,
   * at the model's time per unit of work, took more than that share of the window. Work, not items:
   * after an overload the backlog embeds what it left (mostly chats' long memories, about 21 ms
   * each) while the new writes are the steady mix (about 13 ms an item), and per item the demand
   * read twice what it was. Then resting would let
   * the backlog grow for as long as the writes keep up, so it works at full rate. Otherwise it keeps
   * to the share however long its backlog is: what an overload left drains at the share's margin
   * over the writes while the load goes on (and at full rate once it pauses), and the requests keep
   * the latency they had before the overload. The model's time is its own on the backlog's calls,
   * not their waits behind queries: counted, those made the writes of a cold start or of an
   * overload's end seem to need 10 to 118 cores, so the backlog took a whole core just as the
   * requests needed it.
   */
  private outrunsShare(share: number): boolean {
    return this.demand > share;
  }

  /** Closes the demand window once it is `demandWindowMs` old, measuring its demand. */
  private roll(now: number): void {
    const length = now - this.window.since;
    if (length < (this.options.demandWindowMs ?? DEMAND_WINDOW_MS)) return;
    const { written, embedded, modelMs } = this.window;
    if (embedded > 0) this.msPerWork = modelMs / embedded;
    this.demand = this.msPerWork === undefined ? 0 : (written * this.msPerWork) / length;
    this.window = { since: now, written: 0, embedded: 0, modelMs: 0 };
  }

  /** Waits `ms`; stop ends the wait at once. */
  private async rest(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.unyield = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.unyield = undefined;
  }
}
