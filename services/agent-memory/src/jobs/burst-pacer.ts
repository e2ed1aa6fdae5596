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
   * How long after a burst's first write the backlog keeps to `burstShare` (default
   * FULL_RATE_AFTER_MS): a burst it has not caught up with by then outruns that share, and it
   * works at full rate until it has.
   */
  fullRateAfterMs?: number;
}

/**
 * The pause in this replica's writes after which the backlog embeds: a burst's writes (API adds,
 * a chat's episodic memory, content updates) follow each other closer than this.
 */
const QUIET_MS = 100;

/**
 * While a burst of writes goes on past `yieldMs`, the backlog takes at most this share of one core
 * (for FULL_RATE_AFTER_MS at most): after each batch it rests as long as its model calls took.
 * The request work of the burst keeps the other half and the other cores; the backlog drains at
 * half its rate meanwhile, and at full rate once the writes pause. Half, not a quarter: at a
 * quarter, the soak's steady 40 requests/s (12 chats/s, each kept as an episodic memory, and 10
 * adds/s) outran the backlog by about 7 items/s on two cores.
 */
const BURST_SHARE = 0.5;

/**
 * A burst that the backlog has not caught up with this long after its first write outruns its
 * share: from then on it works at full rate until it has caught up, so an item waits for its
 * vector about this long at most, plus the catching up, under a steady load as under a burst.
 * At half a core on a host 1.5 times slower than the development machine, the soak's steady
 * 40 requests/s outran the backlog by about 200 items a minute for 30 minutes (the model needs
 * more than half a core there); with this bound it caught up within six minutes and stayed
 * under 250 items, every kind's p99 flat, in two 30-minute runs; on a slower stretch of that host
 * the load outran even the full rate (docs/operations.md, "Soak").
 */
const FULL_RATE_AFTER_MS = 30_000;

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

  constructor(private readonly options: PacingOptions) {}

  /** A write on this replica left an item without a vector. */
  write(): void {
    const now = Date.now();
    this.lastWrite = now;
    this.burstSince ??= now;
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
   * at `burstShare` of a core while the burst goes on (see pace; at most `fullRateAfterMs` after
   * its first write) and at full rate once it pauses.
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
   * After a batch whose model calls took `modelMs`, during a burst that has outlasted `yieldMs`:
   * rests so that the model's share of one core stays at `burstShare`, or until the writes pause
   * (then it goes on at full rate at once). Outside a burst, or with `yieldMs` 0, it does not rest,
   * nor once the burst has outlasted `fullRateAfterMs`: the share has not kept up with it.
   * Only the model's time counts: the claim's and the store's round trips wait on the database,
   * and counting them (a loaded stand-in makes them slow) left the model well under its share.
   */
  async pace(modelMs: number): Promise<void> {
    const share = this.options.burstShare ?? BURST_SHARE;
    if (share >= 1 || this.options.yieldMs <= 0 || !this.inBurst() || this.outrunsShare()) return;
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

  /** Whether the current burst has gone on past `fullRateAfterMs` without the backlog catching up. */
  private outrunsShare(): boolean {
    const fullRateAfterMs = this.options.fullRateAfterMs ?? FULL_RATE_AFTER_MS;
    return this.burstSince !== undefined && Date.now() - this.burstSince >= fullRateAfterMs;
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
